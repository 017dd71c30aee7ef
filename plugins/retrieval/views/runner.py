"""Index work off the GUI thread: each job runs on a worker, its result (or error) comes back to
the GUI thread through the app's bridge (workbench.ui.bridge). Two workers: adding files (long)
must not hold up a search or the list.

The workers are daemon threads: a job under way when the window closes (a first search loading
the model for tens of seconds, a file being indexed) never keeps the process alive; `stop` drops
what was queued and whatever a running job returns."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import shiboken6
from PySide6.QtCore import QObject

from workbench.ui.bridge import gui_deliver

log = logging.getLogger(__name__)
Done = Callable[[Any], None]
Failed = Callable[[BaseException], None]
Job = tuple[Callable[[], Any], "Future[Any]"]


class _Lane:
    """One daemon worker thread taking jobs in order."""

    def __init__(self, name: str) -> None:
        self.jobs: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._work, name=name, daemon=True)
        self.thread.start()

    def submit(self, job: Callable[[], Any]) -> Future[Any]:
        future: Future[Any] = Future()
        self.jobs.put((job, future))
        return future

    def _work(self) -> None:
        while (item := self.jobs.get()) is not None:
            job, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job())
            except BaseException as error:  # delivered to the view's `failed`
                future.set_exception(error)

    def stop(self) -> None:
        """Cancel what waits; the thread ends after the job under way (never waited for)."""
        while True:
            try:
                item = self.jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[1].cancel()
        self.jobs.put(None)


class Runner(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._quick = _Lane("documents-view")
        self._long = _Lane("documents-add")
        self._stopped = False
        self.running = 0  # jobs not yet delivered (tests wait for 0)

    def run(
        self, job: Callable[[], Any], done: Done, failed: Failed, *, long: bool = False
    ) -> None:
        if self._stopped:
            return
        self.running += 1
        future = (self._long if long else self._quick).submit(job)
        future.add_done_callback(lambda f: self._from_worker(f, done, failed))

    def _from_worker(self, future: Future[Any], done: Done, failed: Failed) -> None:
        # On the worker: never touch this QObject here (the GUI thread may be deleting it right
        # now: a crash). The app's bridge, which lives as long as the app, carries it over.
        gui_deliver(self._on_gui_thread, (future, done, failed))

    def _on_gui_thread(self, delivery: tuple[Future[Any], Done, Failed]) -> None:
        if shiboken6.isValid(self):  # the view may be gone by the time the job ended
            self._deliver(*delivery)

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
        if self._stopped:
            return
        self._stopped = True
        self._quick.stop()
        self._long.stop()
