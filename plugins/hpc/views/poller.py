"""The queue view's polling: a QTimer on the GUI thread, the SSH work on one worker thread.

Each tick hands one `QueueSource.poll` to the worker and returns at once; the snapshot comes back
as the `polled` signal, queued to the GUI thread. A tick while a poll is still running asks for
one more poll when it ends instead of piling polls up behind a slow host.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal

from workbench.ui.bridge import gui_deliver
from workbench_plugins.hpc.views.queue_source import LogRequest, QueueSnapshot, QueueSource

log = logging.getLogger(__name__)


class QueuePoller(QObject):
    polled = Signal(object)  # QueueSnapshot, on the GUI thread

    def __init__(
        self,
        source: QueueSource,
        hosts: Callable[[], list[str]],
        log_request: Callable[[], LogRequest | None],
        interval_s: float,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.source = source
        self._hosts = hosts
        self._log_request = log_request
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hpc-queue-poll")
        self._running = False
        self._again = False
        self._stopped = False
        self.polls = 0  # finished polls, for tests and the benchmark
        self.timer = QTimer(self)
        self.timer.setInterval(max(200, int(interval_s * 1000)))
        self.timer.timeout.connect(self.poll_now)

    def start(self) -> None:
        self._stopped = False
        self.timer.start()
        self.poll_now()

    def stop(self) -> None:
        """No more polls; a poll still on the worker finishes there and is dropped."""
        self._stopped = True
        self.timer.stop()
        self._worker.shutdown(wait=False, cancel_futures=True)

    @property
    def busy(self) -> bool:
        return self._running

    def poll_now(self) -> None:
        if self._stopped:
            return
        if self._running:
            self._again = True
            return
        self._running = True
        hosts, request = list(self._hosts()), self._log_request()
        future = self._worker.submit(self.source.poll, hosts, request)
        future.add_done_callback(self._from_worker)

    def _from_worker(self, future: Future[QueueSnapshot]) -> None:
        # On the worker: never touch this QObject here (the GUI thread may be deleting it right
        # now: a crash). The app's bridge, which lives as long as the app, carries it over.
        gui_deliver(self._on_gui_thread, future)

    def _on_gui_thread(self, future: Future[QueueSnapshot]) -> None:
        if shiboken6.isValid(self):  # the view may be gone by the time a slow host answered
            self._deliver(future)

    def _deliver(self, future: Future[QueueSnapshot]) -> None:
        self._running = False
        if self._stopped or future.cancelled():
            return
        error = future.exception()
        if error is not None:  # QueueSource.poll reports host failures itself; this is a bug
            log.error("queue poll failed", exc_info=error)
        else:
            self.polls += 1
            self.polled.emit(future.result())
        if self._again:
            self._again = False
            self.poll_now()
