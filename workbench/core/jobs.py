"""CPU-bound work in worker processes that stream events and can be cancelled.

A job function lives at module level (it is pickled by reference into a spawned process) and takes a
`Reporter` first. Events it reports arrive on the parent's bus, in order, through one monitor thread
per job. Cancelling asks politely (the reporter's `cancelled` flag), then terminates, then kills:
a job stops within a second whether or not it looks at the flag.
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import threading
import traceback
from collections.abc import Callable
from enum import StrEnum
from multiprocessing.connection import wait as wait_for
from typing import Any

from workbench.core.events import Event, EventBus, JobFinished, JobProgress, JobStarted

GRACE_S = 0.25  # time a job gets to notice `cancelled` before it is terminated
EXIT_S = 2.0  # how long a worker that reported its result may take to exit
POLL_S = 0.05  # how often the monitor looks whether a silent worker is still alive
_SPAWN = multiprocessing.get_context("spawn")  # fork is unsafe beside Qt and threads
_numbers = itertools.count(1)


class JobState(StrEnum):
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


class JobCancelled(Exception):
    pass


class JobFailed(RuntimeError):
    pass


class Reporter:
    """Handed to the job function in the worker process."""

    def __init__(self, job_id: str, channel: Any, cancel_flag: Any) -> None:
        self.job_id = job_id
        self._channel = channel
        self._cancel_flag = cancel_flag

    @property
    def cancelled(self) -> bool:
        return bool(self._cancel_flag.is_set())

    def progress(self, fraction: float | None = None, message: str = "", **data: Any) -> None:
        self.publish(
            JobProgress(
                source=self.job_id,
                job_id=self.job_id,
                fraction=fraction,
                message=message,
                data=data,
            )
        )

    def publish(self, event: Event) -> None:
        self._channel.put(("event", event))


def _worker_main(
    function: Callable[..., Any],
    job_id: str,
    channel: Any,
    cancel_flag: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    reporter = Reporter(job_id, channel, cancel_flag)
    try:
        result = function(reporter, *args, **kwargs)
    except JobCancelled:
        channel.put(("cancelled", None))
    except BaseException as error:
        channel.put(("failed", f"{type(error).__name__}: {error}\n{traceback.format_exc()}"))
    else:
        channel.put(("done", result))


class Job:
    def __init__(self, title: str, bus: EventBus) -> None:
        self.id = f"job-{next(_numbers)}"
        self.title = title
        self.state = JobState.RUNNING
        self.error = ""
        self._bus = bus
        self._result: Any = None
        self._finished = threading.Event()
        self._channel = _SPAWN.Queue()
        self._cancel_flag = _SPAWN.Event()
        self._process: Any = None

    def start(self, function: Callable[..., Any], args: tuple, kwargs: dict) -> Job:
        self._process = _SPAWN.Process(
            target=_worker_main,
            args=(function, self.id, self._channel, self._cancel_flag, args, kwargs),
            name=self.id,
            daemon=True,
        )
        self._bus.publish(JobStarted(source=self.id, job_id=self.id, title=self.title))
        self._process.start()
        threading.Thread(target=self._monitor, name=f"{self.id}-monitor", daemon=True).start()
        return self

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._finished.wait(timeout)

    def result(self, timeout: float | None = None) -> Any:
        if not self._finished.wait(timeout):
            raise TimeoutError(f"{self.title} is still running")
        if self.state is JobState.CANCELLED:
            raise JobCancelled(self.title)
        if self.state is JobState.FAILED:
            raise JobFailed(f"{self.title} failed: {self.error}")
        return self._result

    def cancel(self) -> None:
        if self.done:
            return
        self._cancel_flag.set()
        threading.Thread(target=self._enforce_cancel, daemon=True).start()

    def _enforce_cancel(self) -> None:
        # only the monitor thread reaps the process (concurrent joins race on waitpid); here we
        # just watch its sentinel
        process = self._process
        for stop in (process.terminate, process.kill):
            if wait_for([process.sentinel], GRACE_S):
                return
            stop()

    def _monitor(self) -> None:
        process = self._process
        while True:
            try:
                kind, payload = self._channel.get(timeout=POLL_S)
            except queue.Empty:
                if process.is_alive():
                    continue
                # a worker that ended normally flushed its last message before exiting; one
                # that was terminated has none, so do not wait long for it
                try:
                    kind, payload = self._channel.get(
                        timeout=POLL_S if not self._cancel_flag.is_set() else 0.01
                    )
                except queue.Empty:
                    cancelled = self._cancel_flag.is_set()
                    reason = "" if cancelled else f"worker exited with code {process.exitcode}"
                    self._finish(JobState.CANCELLED if cancelled else JobState.FAILED, reason)
                    return
            if kind == "event":
                self._bus.publish(payload)
                continue
            if kind == "done":
                self._result = payload
            self._finish(JobState(kind), payload if kind == "failed" else "")
            return

    def _finish(self, state: JobState, error: str) -> None:
        """Reap the worker first, so a finished job never leaves a process behind."""
        self._process.join(EXIT_S)
        if self._process.is_alive():  # sent its result but hangs on exit (stray threads)
            self._process.kill()
            self._process.join()
        self.state, self.error = state, error
        self._finished.set()
        self._bus.publish(JobFinished(source=self.id, job_id=self.id, status=state, error=error))


class JobRunner:
    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._jobs: dict[str, Job] = {}

    def submit(
        self, function: Callable[..., Any], *args: Any, title: str = "", **kwargs: Any
    ) -> Job:
        job = Job(title or getattr(function, "__name__", "job"), self._bus)
        self._jobs[job.id] = job
        return job.start(function, args, kwargs)

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def running(self) -> list[Job]:
        return [job for job in self._jobs.values() if not job.done]

    def cancel_all(self) -> None:
        for job in self.running():
            job.cancel()
