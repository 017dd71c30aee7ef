"""The main window: chat on the left, plugin views in the middle, the ledger on the right, and a
status bar with background jobs and notices. Its layout survives restarts.

Plugin views are built when first shown, their imports on a worker thread (view_docks.py); with
no view open, the centre shows the view of the latest work (the last tool call's) or the first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTabBar,
    QWidget,
)

import workbench
from workbench.core.context import AppContext
from workbench.core.events import Notice
from workbench.core.plugins import Plugin, Service, ViewRequested, ViewSpec, view_showing
from workbench.ui.approvals import DesktopApprovals
from workbench.ui.async_loop import cancel_tasks, start_task
from workbench.ui.bridge import subscribe_in_gui
from workbench.ui.chat.panel import ChatDock
from workbench.ui.dock_fitting import DockFitter
from workbench.ui.jobs_widget import JobsWidget
from workbench.ui.layout_store import WindowLayout, load_layout, save_layout
from workbench.ui.ledger_view import LedgerDock
from workbench.ui.notices import NoticesButton
from workbench.ui.view_docks import ViewDock

if TYPE_CHECKING:
    from workbench.ui.mcp_serve import McpServePanel
    from workbench.ui.settings_dialog import SettingsDialog

log = logging.getLogger(__name__)
STATUS_MESSAGE_MS = 8000
DEFAULT_SIZE = (1240, 780)
RECENT_CALLS = 50  # the latest tool calls looked at for the view the work is in


class MainWindow(QMainWindow):
    def __init__(
        self,
        context: AppContext,
        *,
        remember_layout: bool = True,
        services: Sequence[Service] = (),
    ) -> None:
        super().__init__()
        self.setObjectName("main-window")
        self.setWindowTitle(f"Workbench — {context.store.folder}")
        self.context = context
        self.remember_layout = remember_layout
        self.services = list(services)  # running while the window is open (a printer host...)
        self.close_question: QMessageBox | None = None
        self._close_confirmed = False
        self.plugin_docks: dict[str, ViewDock] = {}
        self.view_specs: dict[str, tuple[Plugin, ViewSpec]] = {}
        self.settings_dialog: SettingsDialog | None = None
        self.mcp_panel: McpServePanel | None = None
        self.resize(*DEFAULT_SIZE)
        self.setDockOptions(
            QMainWindow.DockOption.AllowTabbedDocks | QMainWindow.DockOption.AnimatedDocks
        )

        # Plugin views dock into their own main window, the central area, so they tab and split
        # among themselves without pushing the chat and the ledger around.
        self.view_area = QMainWindow(self)
        self.view_area.setObjectName("view-area")
        self.view_area.setWindowFlags(Qt.WindowType.Widget)
        self.view_area.setDockOptions(
            QMainWindow.DockOption.AllowTabbedDocks
            | QMainWindow.DockOption.AllowNestedDocks
            | QMainWindow.DockOption.AnimatedDocks
        )
        self.placeholder = QLabel()
        self.placeholder.setObjectName("view-placeholder")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet("color: #57606a; font-size: 13pt; padding: 24px;")
        self.view_area.setCentralWidget(self.placeholder)
        self.setCentralWidget(self.view_area)

        self.chat_dock = ChatDock(context, self)
        subscribe_in_gui(context.bus, ViewRequested, self.show_requested_view, self)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.chat_dock)
        self.ledger_dock = LedgerDock(context, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.ledger_dock)
        # Until a person drags a dock's edge, the docks' widths follow the window's width and
        # the ledger's columns; Qt alone would give all new width to the canvas.
        self.dock_fitter = DockFitter(
            self, self.chat_dock, self.ledger_dock, self.ledger_dock.view.wanted_width
        )
        self.ledger_dock.view.refreshed.connect(self.dock_fitter.schedule)

        self.jobs_widget = JobsWidget(context, self)
        self.jobs_widget.message.connect(self._job_message)
        self.notices_button = NoticesButton(context.bus, self)
        self.notices_button.shown.connect(self._show_status)
        self.statusBar().addPermanentWidget(self.jobs_widget)
        self.statusBar().addPermanentWidget(self.notices_button)

        self._collect_view_specs()
        self._build_menus()
        self._update_placeholder()
        self._default_layout = self._current_layout()
        self.restore_layout()
        # Now that the notices button listens, tell it what went wrong while starting.
        context.announce_notices()
        # While the window is open, MCP servers ask it before tools act on the world.
        self.approvals = DesktopApprovals(context, self)
        self.approvals.start()

    # -- plugin views ---------------------------------------------------------------------------
    def _collect_view_specs(self) -> None:
        for plugin in self.context.plugins:
            for spec in plugin.views:
                if spec.name in self.view_specs:
                    owner = self.view_specs[spec.name][0].name
                    self.notice(
                        "warning",
                        f"Plugin {plugin.name!r} declares a view {spec.name!r} that plugin "
                        f"{owner!r} already declares; only the first one is offered.",
                    )
                    continue
                self.view_specs[spec.name] = (plugin, spec)

    def open_view(self, name: str) -> ViewDock | None:
        """Show plugin view `name`, creating its dock on first use; the view itself is built
        when the dock is first visible (view_docks.py). A view that fails gives a notice."""
        existing = self.plugin_docks.get(name)
        if existing is not None:
            existing.show()
            existing.raise_()
            return existing
        if name not in self.view_specs:
            self.notice("warning", f"No installed plugin provides a view named {name!r}.")
            return None
        plugin, spec = self.view_specs[name]
        dock = ViewDock(plugin, spec, self.context, self.view_area)
        dock.failed.connect(lambda reason: self._view_failed(name, reason))
        dock.destroyed.connect(lambda *_: self._view_closed(name))
        visible = [d for d in self.plugin_docks.values() if not d.isHidden()]
        self.view_area.addDockWidget(Qt.DockWidgetArea.TopDockWidgetArea, dock)
        if visible:
            self.view_area.tabifyDockWidget(visible[-1], dock)
        self.plugin_docks[name] = dock
        dock.show()
        dock.raise_()
        self._update_placeholder()
        QTimer.singleShot(0, self, self._untruncated_tabs)  # the tab bar exists after layout
        return dock

    def _view_failed(self, name: str, reason: str) -> None:
        plugin, spec = self.view_specs[name]
        dock = self.plugin_docks.pop(name, None)
        if dock is not None and shiboken6.isValid(dock):
            dock.close()
        self._update_placeholder()
        self.notice(
            "error",
            f"The view {spec.title!r} of plugin {plugin.name!r} could not be opened: {reason}. "
            "Update or reinstall the plugin; the rest of the workbench is unaffected.",
        )

    def _untruncated_tabs(self) -> None:
        """Tabbed views show their whole titles ("Grading", not "Gra..."), scrolling if need be."""
        for bar in self.view_area.findChildren(QTabBar):
            bar.setElideMode(Qt.TextElideMode.ElideNone)
            bar.setUsesScrollButtons(True)
            bar.setExpanding(False)

    def show_view_of_latest_work(self) -> None:
        """The centre shows a view rather than a list of them (the app calls this at start):
        with no view open (none restored), the view of the latest tool call that has one,
        else the first view. Decided off the GUI thread; built when shown."""
        if not self.plugin_docks and self.view_specs:
            start_task(self._open_view_of_latest_work(), name="window:first-view")

    async def _open_view_of_latest_work(self) -> None:
        query = "SELECT tool FROM tool_calls ORDER BY id DESC LIMIT ?"
        try:
            rows = await asyncio.to_thread(self.context.store.query, query, (RECENT_CALLS,))
        except Exception:  # a store that cannot be read: the first view still helps
            log.exception("the latest tool calls could not be read")
            rows = []
        if not shiboken6.isValid(self) or self.plugin_docks:
            return  # closed meanwhile, or a view was opened by then
        plugins = [plugin for plugin, _ in self.view_specs.values()]
        for row in rows:
            tool = row["tool"]
            spec = view_showing(plugins, tool, self.context.registry.owner(tool))
            if spec is not None and spec.name in self.view_specs:
                self.open_view(spec.name)
                return
        self.open_view(next(iter(self.view_specs)))

    def open_plugin_view(self, plugin: str) -> QDockWidget | None:
        """Show the first view of `plugin` (a chat tool card was clicked); None if it has none."""
        for name, (owner, _spec) in self.view_specs.items():
            if owner.name == plugin:
                return self.open_view(name)
        return None

    def show_requested_view(self, request: ViewRequested) -> None:
        """Someone asked for a view by name (a chat card's link to its result): show it, at
        the place the request names when the view can show places (`show_target`)."""
        dock = self.open_view(request.view)
        if dock is not None and request.target:
            dock.when_built(lambda view: self._show_target(view, request.target))

    @staticmethod
    def _show_target(view: object, target: str) -> None:
        show_target = getattr(view, "show_target", None)
        if callable(show_target):
            show_target(target)

    def _view_closed(self, name: str) -> None:
        self.plugin_docks.pop(name, None)
        if shiboken6.isValid(self.placeholder):  # not while the whole window is going away
            self._update_placeholder()

    def _update_placeholder(self) -> None:
        # With views open the (hidden) placeholder gives all its room to them.
        self.placeholder.setVisible(not self.plugin_docks)
        if self.view_specs:
            self.placeholder.setText("Open a view from the Views menu.")
        else:
            self.placeholder.setText(
                "No plugin provides a view yet.\nTalk to the workbench in the chat on the left."
            )

    # -- menus ----------------------------------------------------------------------------------
    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        settings_action = file_menu.addAction("&Settings…", self.open_settings)
        settings_action.setShortcut(QKeySequence.StandardKey.Preferences)
        settings_action.setObjectName("action-settings")
        serve_action = file_menu.addAction("Serve tools over &MCP…", self.open_mcp_panel)
        serve_action.setObjectName("action-serve-mcp")
        file_menu.addSeparator()
        quit_action = file_menu.addAction("&Quit", self.close)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)

        self.views_menu = bar.addMenu("&Views")
        self.views_menu.setObjectName("views-menu")
        self.view_actions: dict[str, QAction] = {}
        for name, (plugin, spec) in self.view_specs.items():
            action = self.views_menu.addAction(f"{spec.title}  ({plugin.title})")
            action.setObjectName(f"open-view:{name}")
            action.triggered.connect(lambda _checked=False, view=name: self.open_view(view))
            self.view_actions[name] = action
        if not self.view_specs:
            self.views_menu.addAction("No plugin provides a view").setEnabled(False)

        window_menu = bar.addMenu("&Window")
        window_menu.addAction(self.chat_dock.toggleViewAction())
        window_menu.addAction(self.ledger_dock.toggleViewAction())
        window_menu.addAction("&Notices…", self.notices_button.open_list)
        window_menu.addSeparator()
        window_menu.addAction("&Reset layout", self.reset_layout)

        help_menu = bar.addMenu("&Help")
        from workbench.ui.first_run import open_guide  # the guide is built only when asked for

        guide = help_menu.addAction(
            "&Getting started…",
            lambda: open_guide(self.context, self.chat_dock.panel.model_picker, self),
        )
        guide.setObjectName("action-getting-started")
        help_menu.addAction("&About Workbench", self._about)

    def open_settings(self) -> SettingsDialog:
        if self.settings_dialog is None:
            from workbench.ui.settings_dialog import SettingsDialog  # built only when asked for

            dialog = SettingsDialog(self.context, self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            dialog.destroyed.connect(lambda *_: setattr(self, "settings_dialog", None))
            dialog.accepted.connect(lambda: self._show_status("Settings saved."))
            self.settings_dialog = dialog
        self.settings_dialog.open()  # window-modal, but the event loop keeps running
        return self.settings_dialog

    def open_mcp_panel(self) -> McpServePanel:
        """The non-modal panel serving the tools over MCP (kept while the window lives, so
        closing the panel does not stop serving)."""
        if self.mcp_panel is None:
            from workbench.ui.mcp_serve import McpServePanel  # built only when asked for

            self.mcp_panel = McpServePanel(self.context, self)
        self.mcp_panel.show()
        self.mcp_panel.raise_()
        return self.mcp_panel

    def _about(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "About Workbench",
            f"Workbench {workbench.__version__}\n\n"
            f"Plugins: {', '.join(p.title for p in self.context.plugins) or 'none'}\n"
            f"Tools: {len(self.context.registry.names())}\n"
            f"Workspace: {self.context.store.folder}\n"
            f"Settings: {self.context.paths.settings_file}",
            QMessageBox.StandardButton.Ok,
            self,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    # -- status ---------------------------------------------------------------------------------
    def notice(self, level: str, text: str) -> None:
        """Tell the person something went wrong, without interrupting them."""
        self.context.bus.publish(Notice(source="gui", level=level, text=text))

    def _show_status(self, text: str) -> None:
        self.statusBar().showMessage(text, STATUS_MESSAGE_MS)

    def _job_message(self, level: str, text: str) -> None:
        if level == "error":
            self.notice("error", text)
        else:
            self._show_status(text)

    # -- layout ---------------------------------------------------------------------------------
    def _current_layout(self) -> WindowLayout:
        return WindowLayout(
            geometry=self.saveGeometry(),
            state=self.saveState(),
            views_state=self.view_area.saveState(),
            open_views=[name for name, dock in self.plugin_docks.items() if not dock.isHidden()],
            docks_follow_window=self.dock_fitter.follows_window,
        )

    def restore_layout(self) -> None:
        layout, problem = load_layout(self.context.paths.layout_file)
        if problem:
            self.notice("warning", problem)
        if layout is None:
            return
        self._apply_layout(layout)
        self.dock_fitter.layout_restored = not layout.state.isEmpty()
        self.dock_fitter.follows_window = layout.docks_follow_window

    def _apply_layout(self, layout: WindowLayout) -> None:
        if not layout.geometry.isEmpty():
            self.restoreGeometry(layout.geometry)
        for name in layout.open_views:
            if name in self.view_specs:
                self.open_view(name)
        if not layout.state.isEmpty():
            self.restoreState(layout.state)
        if not layout.views_state.isEmpty():
            self.view_area.restoreState(layout.views_state)

    def reset_layout(self) -> None:
        for dock in list(self.plugin_docks.values()):
            dock.close()
        self._apply_layout(self._default_layout)
        self.dock_fitter.follows_window = True
        self.dock_fitter.fit()

    def save_layout(self) -> None:
        try:
            save_layout(self._current_layout(), self.context.paths.layout_file)
        except OSError as error:
            log.warning("window layout not saved: %s", error)

    def closeEvent(self, event: QCloseEvent) -> None:  # Qt override
        busy = [] if self._close_confirmed else self._busy_services()
        if busy:
            event.ignore()  # ask first; closing would stop what the services run
            self._ask_before_closing(busy)
            return
        if self.remember_layout:
            self.save_layout()
        for view in self._built_views():  # a view's own work (a task run, a search) stops too
            stop = getattr(view, "stop_for_close", None)
            if callable(stop):
                stop()
        cancel_tasks("chat:")  # loading a model, asking the servers: nothing to wait for now
        self.approvals.stop()  # what MCP clients still wait for is answered denied
        if self.mcp_panel is not None:
            self.mcp_panel.shutdown()
        super().closeEvent(event)

    def _busy_services(self) -> list[str]:
        busy = []
        for service in self.services:
            try:
                busy += service.busy()
            except Exception:  # cannot tell: do not keep the person from closing
                log.exception("asking a service whether it is busy failed")
        if self.mcp_panel is not None:
            busy += self.mcp_panel.busy()
        for view in self._built_views():  # views that run work say what closing stops
            stops = getattr(view, "closing_stops", None)
            if callable(stops):
                busy += stops()
        return busy

    def _built_views(self) -> list[QWidget]:
        docks = [dock for dock in self.plugin_docks.values() if shiboken6.isValid(dock)]
        return [view for dock in docks if (view := dock.widget()) is not None]

    def _ask_before_closing(self, busy: list[str]) -> None:
        """Non-modal: the window stays responsive while the person decides."""
        if self.close_question is not None:
            self.close_question.raise_()
            return
        items = "\n".join(f"• {line}" for line in busy)
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Close Workbench?",
            f"Closing Workbench stops:\n{items}\n\nClose anyway?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setObjectName("confirm-close")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        self.close_question = box

        def answered(button: int) -> None:
            self.close_question = None
            if button == QMessageBox.StandardButton.Yes:
                self._close_confirmed = True
                self.close()

        box.finished.connect(answered)
        box.open()
