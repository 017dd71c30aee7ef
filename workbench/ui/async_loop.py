"""The asyncio loop of the GUI: qasync runs asyncio callbacks inside Qt's own event loop.

`attached_event_loop(app)` makes a qasync loop the running loop of the GUI thread for as long as
the block lasts, whether Qt's loop is started by `app.exec()` (the application) or by pytest-qt
(the tests). Widgets then start I/O with `start_task(...)` and never wait for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import qasync
from PySide6.QtCore import QCoreApplication

log = logging.getLogger(__name__)
T = TypeVar("T")

# Tasks are only weakly referenced by asyncio; keep them alive until they finish.
_running_tasks: set[asyncio.Task[Any]] = set()


@contextmanager
def attached_event_loop(app: QCoreApplication) -> Iterator[asyncio.AbstractEventLoop]:
    loop = qasync.QEventLoop(app, already_running=True)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        for task in list(_running_tasks):
            task.cancel()
        loop.stop()
        # A loop left "running" on this thread would make a later asyncio.run() refuse to start.
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        loop.close()


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


def _forget(task: asyncio.Task[Any]) -> None:
    _running_tasks.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("GUI task %s failed", task.get_name(), exc_info=task.exception())
