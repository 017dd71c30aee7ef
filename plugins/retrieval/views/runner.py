"""Index work off the GUI thread: each job runs on a worker, its result (or error) comes back to
the GUI thread through a queued signal. Two workers: adding files (long) must not hold up a
search or the list."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal

log = logging.getLogger(__name__)
Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]


class Runner(QObject):
    _finished = Signal(object, object, object)  # future, on_done, on_error

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._quick = ThreadPoolExecutor(max_workers=1, thread_name_prefix="documents-view")
        self._long = ThreadPoolExecutor(max_workers=1, thread_name_prefix="documents-add")
        self._stopped = False
        self.running = 0  # jobs not yet delivered (tests wait for 0)
        self._finished.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def run(
        self, job: Callable[[], Any], done: Done, failed: Failed, *, long: bool = False
    ) -> None:
        if self._stopped:
            return
        self.running += 1
        future = (self._long if long else self._quick).submit(job)
        future.add_done_callback(lambda f: self._from_worker(f, done, failed))

    def _from_worker(self, future: Future[Any], done: Done, failed: Failed) -> None:
        if shiboken6.isValid(self):  # the view may be gone by the time the job ended
            self._finished.emit(future, done, failed)

    def _deliver(self, future: Future[Any], done: Done, failed: Failed) -> None:
        self.running -= 1
        if self._stopped or future.cancelled():
            return
        error = future.exception()
        try:
            if error is None:
                done(future.result())
            else:
                failed(error)
        except Exception:  # a handler's bug must not leave the view half-updated silently
            log.exception("documents view: handling a job's result failed")

    def stop(self) -> None:
        self._stopped = True
        self._quick.shutdown(wait=False, cancel_futures=True)
        self._long.shutdown(wait=False, cancel_futures=True)
