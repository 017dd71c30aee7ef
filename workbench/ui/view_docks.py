"""A plugin view's dock, built when it is first shown, its imports done off the GUI thread.

A view's heavy libraries (its `ViewSpec.warm_up`: VTK, matplotlib) can take seconds to import;
done on the GUI thread that froze the window for as long. `ViewDock` shows "Opening…" until then:
it runs the warm-up on a worker thread when the dock first becomes visible (a restored tab behind
another waits until it is chosen), then imports the view's module and calls the factory on the
GUI thread, where Qt is imported and widgets are made.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QDockWidget, QLabel, QWidget

from workbench.core.context import AppContext
from workbench.core.plugins import Plugin, ViewSpec
from workbench.ui.async_loop import start_task

log = logging.getLogger(__name__)


def warm_up(reference: str) -> None:
    """Import "module" (or "module:function" and call it); blocking: run it off the GUI thread."""
    module_name, _, function = reference.partition(":")
    module = importlib.import_module(module_name)
    if function:
        getattr(module, function)()


def _prepare(spec: ViewSpec) -> None:
    """What runs on the worker thread: the warm-up only. The factory's module defines Qt
    classes: Qt bindings are imported on the GUI thread alone (shiboken registering types on a
    worker while the GUI thread runs Qt crashed the interpreter, about one test run in three)."""
    if spec.warm_up:
        warm_up(spec.warm_up)


def _prepared(spec: ViewSpec) -> bool:
    """Nothing left to import: the view can be built at once."""
    modules = [
        spec.factory.partition(":")[0],
        *(step.partition(":")[0] for step in spec.gui_imports),
    ]
    if spec.warm_up:
        modules.append(spec.warm_up.partition(":")[0])
    return all(name in sys.modules for name in modules) and not spec.warm_up.count(":")


class ViewDock(QDockWidget):
    """`built` carries the view widget once it replaced the "Opening…" label; `failed` the
    reason when the factory raised (the window then says so and closes the dock)."""

    built = Signal(object)
    failed = Signal(str)

    def __init__(
        self, plugin: Plugin, spec: ViewSpec, context: AppContext, parent: QWidget
    ) -> None:
        super().__init__(spec.title, parent)
        self.plugin = plugin
        self.spec = spec
        self.context = context
        self.view: QWidget | None = None
        self._building = False
        self._when_built: list[Callable[[QWidget], None]] = []
        self.setObjectName(spec.name)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # closing a view frees it
        waiting = QLabel(f"Opening {spec.title}…")
        waiting.setObjectName("view-opening")
        waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        waiting.setStyleSheet("color: #57606a;")
        self.setWidget(waiting)
        self.visibilityChanged.connect(self._visibility_changed)

    def when_built(self, callback: Callable[[QWidget], None]) -> None:
        """Call `callback(view)` once the view exists (at once if it does)."""
        if self.view is not None:
            callback(self.view)
        else:
            self._when_built.append(callback)

    def _visibility_changed(self, visible: bool) -> None:
        if visible:
            self.build()

    def build(self) -> None:
        """Make the view now if its modules are loaded, else after importing them off-thread."""
        if self.view is not None or self._building:
            return
        self._building = True
        if _prepared(self.spec):
            self._make(sys.modules[self.spec.factory.partition(":")[0]])
        else:
            start_task(self._prepare_then_make(), name=f"view:{self.spec.name}")

    async def _prepare_then_make(self) -> None:
        try:
            await asyncio.to_thread(_prepare, self.spec)
            for step in self.spec.gui_imports:
                warm_up(step)
                await asyncio.sleep(0)  # the window's events run between two steps
            module = importlib.import_module(self.spec.factory.partition(":")[0])
        except Exception as error:  # a missing or broken module: the window says so
            log.exception("view %s of plugin %s failed to load", self.spec.name, self.plugin.name)
            if shiboken6.isValid(self):
                self._building = False
                self.failed.emit(f"{type(error).__name__}: {error}")
            return
        if shiboken6.isValid(self):
            self._make(module)

    def _make(self, module: Any) -> None:
        attribute = self.spec.factory.partition(":")[2]
        try:
            factory: Any = module
            for part in filter(None, attribute.split(".")):
                factory = getattr(factory, part)
            widget = factory(self.context)
            if not isinstance(widget, QWidget):
                raise TypeError(
                    f"{self.spec.factory} returned {type(widget).__name__}, not a QWidget"
                )
        except Exception as error:
            log.exception("view %s of plugin %s failed", self.spec.name, self.plugin.name)
            self._building = False
            self.failed.emit(f"{type(error).__name__}: {error}")
            return
        waiting = self.widget()
        # its first paint in the next turn of the event loop, not in this one: a plot view's
        # making and its first paint were 45 and 40 ms of the GUI thread, back to back
        widget.setUpdatesEnabled(False)
        self.setWidget(widget)
        QTimer.singleShot(0, widget, lambda: widget.setUpdatesEnabled(True))
        if waiting is not None:
            waiting.deleteLater()
        self.view = widget
        self._building = False
        callbacks, self._when_built = self._when_built, []
        for callback in callbacks:
            callback(widget)
        self.built.emit(widget)
