"""The asyncio loop of the GUI: qasync runs asyncio callbacks inside Qt's own event loop.

`attached_event_loop(app)` makes a qasync loop the running loop of the GUI thread for as long as
the block lasts, whether Qt's loop is started by `app.exec()` (the application) or by pytest-qt
(the tests). Widgets then start I/O with `start_task(...)` and never wait for it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

import qasync
from PySide6.QtCore import QCoreApplication, QEventLoop

log = logging.getLogger(__name__)
T = TypeVar("T")
SHUTDOWN_GRACE_S = 2.0

# Tasks are only weakly referenced by asyncio; keep them alive until they finish.
_running_tasks: set[asyncio.Task[Any]] = set()


@contextmanager
def attached_event_loop(app: QCoreApplication) -> Iterator[asyncio.AbstractEventLoop]:
    loop = qasync.QEventLoop(app, already_running=True)
    # Blocking calls (asyncio.to_thread, sync tools) run on plain Python threads rather than
    # qasync's QThread pool: they need nothing from Qt, and their lifetime stays out of Qt's.
    loop.set_default_executor(ThreadPoolExecutor(max_workers=8, thread_name_prefix="gui-io"))
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        _cancel_tasks(app)
        _mark_stopped(loop)
        # A loop left "running" on this thread would make a later asyncio.run() refuse to start.
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        loop.close()


def _mark_stopped(loop: asyncio.AbstractEventLoop) -> None:
    """Let qasync close the loop without `loop.stop()`.

    qasync's stop() calls QCoreApplication.exit(), and in Qt 6 that makes every later nested
    QEventLoop.exec() return at once: harmless when the application ends, fatal for a test
    session (or an embedding app) that goes on using Qt after the loop is detached.
    """
    if hasattr(loop, "_QEventLoop__is_running"):  # qasync's private flag, checked by close()
        loop._QEventLoop__is_running = False
    else:  # a future qasync without that flag: fall back to the public call
        loop.stop()


def _cancel_tasks(app: QCoreApplication) -> None:
    """Cancel what is still running and let the cancellations run (bounded: this is shutdown)."""
    for task in list(_running_tasks):
        task.cancel()
    deadline = time.monotonic() + SHUTDOWN_GRACE_S
    while _running_tasks and time.monotonic() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)


def start_task(coroutine: Coroutine[Any, Any, T], *, name: str = "") -> asyncio.Task[T]:
    """Run `coroutine` on the GUI's asyncio loop; errors are logged, never raised into Qt."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        coroutine.close()
        raise RuntimeError(
            "No asyncio loop is attached to the GUI thread; run the GUI through "
            "workbench.ui.app.run_gui or wrap it in attached_event_loop()."
        ) from None
    task = loop.create_task(coroutine, name=name or None)
    _running_tasks.add(task)
    task.add_done_callback(_forget)
    return task


def cancel_tasks(prefix: str) -> int:
    """Cancel the running GUI tasks whose name starts with `prefix` (a closing window's own:
    a model still loading on a worker thread must not hold the window open); how many."""
    doomed = [task for task in _running_tasks if task.get_name().startswith(prefix)]
    for task in doomed:
        task.cancel()
    return len(doomed)


def running_tasks() -> int:
    """How many GUI tasks are still running (tests wait for zero before tearing down)."""
    return len(_running_tasks)


def _forget(task: asyncio.Task[Any]) -> None:
    _running_tasks.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("GUI task %s failed", task.get_name(), exc_info=task.exception())
