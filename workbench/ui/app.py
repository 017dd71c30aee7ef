"""`run_gui`: the desktop application. The CLI calls it when `workbench` runs without --headless.

On the first start the window opens with the first-run guide beside it (workbench.ui.first_run);
the chat's model picker checks meanwhile, off the GUI thread, which models are reachable.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox
from threadpoolctl import threadpool_limits

import workbench
from workbench.core.context import AppContext
from workbench.core.plugins import Service, ServiceConflict
from workbench.ui.async_loop import attached_event_loop
from workbench.ui.first_run import show_guide_on_first_start
from workbench.ui.gui_collection import GuiCollection
from workbench.ui.main_window import MainWindow
from workbench.ui.startup.interactive import report_when_interactive

log = logging.getLogger(__name__)
SCREENSHOT_DELAY_MS = 700  # long enough for the first paints and the ledger's first read
# How long a worker thread running Python may keep the GIL while the GUI thread waits for it
# (Python's default is 5 ms): the window's work is many short callbacks, each waiting once.
GUI_SWITCH_INTERVAL_S = 0.001


def share_the_interpreter_with_the_gui() -> threadpool_limits:
    """Hand the GIL to a waiting GUI thread sooner: imports and tools run on worker threads.

    And BLAS on one thread in this process: after each call OpenBLAS's helper threads keep
    spinning on a CPU for a while (during the first send one took a core for ~80 ms beside the
    optimisation's worker, and the window's paint waited for a CPU). The heavy math runs in job
    workers, which set their own. Returns the BLAS limit, which `restore_original_limits` undoes.
    """
    import numpy  # noqa: F401 - the BLAS it loads is what the limit reaches

    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    return threadpool_limits(limits=1, user_api="blas")


def parse_arguments(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(prog="workbench", description="Workbench desktop application")
    parser.add_argument("--workspace", type=Path, help="open this workspace folder")
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PATH",
        help="show the window, save a picture of it to PATH and quit (for tests and docs)",
    )
    return parser.parse_known_args(argv)  # the rest is for Qt (-platform, -style, ...)


def run_gui(argv: list[str]) -> int:
    """Run the GUI until its window closes; `argv` holds the arguments after the program name."""
    options, qt_arguments = parse_arguments(argv)
    share_the_interpreter_with_the_gui()
    app = QApplication.instance() or QApplication([sys.argv[0], *qt_arguments])
    if not isinstance(app, QApplication):  # a QCoreApplication made by someone else
        raise RuntimeError("Workbench's window needs a QApplication; another kind already runs")
    app.setApplicationName("Workbench")
    app.setApplicationVersion(workbench.__version__)
    app.setOrganizationName("workbench")
    app.setWindowIcon(app_icon())
    app.setDesktopFileName("workbench")  # Wayland/X11 match the window to workbench.desktop

    try:
        context = AppContext.open(workspace=options.workspace)
    except Exception as error:  # e.g. an unwritable workspace: say so instead of a traceback
        log.exception("Workbench could not start")
        message = f"Workbench could not start: {error}"
        print(message, file=sys.stderr)
        if options.screenshot is None:
            QMessageBox.critical(None, "Workbench", message)
        return 1

    services: list[Service] = []
    collection = GuiCollection(app)  # garbage with Qt objects is freed on the GUI thread only
    try:
        with attached_event_loop(app):
            services = start_services(context)
            window = open_main_window(context, services, screenshot=options.screenshot is not None)
            if options.screenshot is not None:
                QTimer.singleShot(
                    SCREENSHOT_DELAY_MS, lambda: _save_screenshot(app, window, options.screenshot)
                )
            else:  # the start-up benchmark's hook (workbench.ui.startup); unset: nothing
                report_when_interactive(app, window)
            _quit_on_interrupt(app)
            return app.exec()
    finally:
        for service in reversed(services):
            _stop(service)
        context.close()
        collection.stop()


def app_icon() -> QIcon:
    """The app icon (resources/icons): the SVG at any size, the PNG where SVG icons cannot load.
    Without the icons (an incomplete install) the window opens with the platform's default."""
    try:
        icons = resources.files("workbench_resources.icons")
    except ModuleNotFoundError:
        log.warning("the app icon is missing (package workbench_resources.icons)")
        return QIcon()
    icon = QIcon(str(icons / "workbench.svg"))
    icon.addFile(str(icons / "workbench-256.png"))
    return icon


def open_main_window(
    context: AppContext, services: list[Service], *, screenshot: bool = False
) -> MainWindow:
    """Show the window; on the first start also the first-run guide. A screenshot (tests, docs)
    shows the window as every later start does, and leaves the layout and the guide alone."""
    window = MainWindow(context, remember_layout=not screenshot, services=services)
    window.show()
    window.show_view_of_latest_work()
    if not screenshot:
        # once the window is up, so the guide opens beside it rather than before it
        QTimer.singleShot(
            0,
            lambda: show_guide_on_first_start(context, window.chat_dock.panel.model_picker, window),
        )
    return window


def start_services(context: AppContext) -> list[Service]:
    """Run the plugins' services while the window is open (e.g. the printer host, so the CLI
    and agents reach this app's printers). One another process already provides still counts:
    it may take over later, and closing asks it what it would interrupt."""
    running = []
    for service in context.services():
        try:
            service.start()
        except ServiceConflict as conflict:
            context.notices.append(str(conflict))
        except Exception as error:  # one plugin's service must not keep the window from opening
            log.exception("a service failed to start")
            context.notices.append(f"A plugin's service could not start: {error}")
            continue
        running.append(service)
    return running


def _stop(service: Service) -> None:
    try:
        for line in service.stop():
            log.warning("%s", line)
    except Exception:  # closing down: the rest must still close
        log.exception("stopping a service failed")


def _save_screenshot(app: QApplication, window: MainWindow, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = window.grab().save(str(path))
    if not saved:
        print(f"Could not write the screenshot to {path}.", file=sys.stderr)
    window.close()
    app.exit(0 if saved else 2)


def _quit_on_interrupt(app: QApplication) -> None:
    """Ctrl+C in the terminal closes the window like the Quit menu does."""
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be installed from the main thread
    signal.signal(signal.SIGINT, lambda *_: app.closeAllWindows())
    # Python runs signal handlers only between bytecodes; a idle timer gives it the chance.
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(250)
