"""CPU-bound work in worker processes that stream events and can be cancelled.

A job function lives at module level (it is pickled by reference into a spawned process) and takes a
`Reporter` first. Events it reports arrive on the parent's bus, in order, through one monitor thread
per job. Cancelling asks politely (the reporter's `cancelled` flag), then terminates, then kills:
a job stops within a second whether or not it looks at the flag.

Workers are kept warm between jobs (a few idle ones), because spawning a Python process and
importing the domain libraries again costs about a second per job; a cancelled job's worker is
always discarded, so cancelling never leaves a process behind.
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
from multiprocessing.context import SpawnProcess
from multiprocessing.queues import Queue
from multiprocessing.reduction import ForkingPickler
from multiprocessing.synchronize import Event as CancelFlag
from typing import Any, Generic, TypeVar

from workbench.core.events import Event, EventBus, JobFinished, JobProgress, JobStarted

GRACE_S = 0.25  # time a job gets to notice `cancelled` before it is terminated
EXIT_S = 2.0  # how long a discarded worker may take to exit
POLL_S = 0.05  # how often the monitor looks whether a silent worker is still alive
MAX_IDLE_WORKERS = 2  # warm workers kept between jobs (the machines have few cores)
_SPAWN = multiprocessing.get_context("spawn")  # fork is unsafe beside Qt and threads
_numbers = itertools.count(1)
T = TypeVar("T")
# A worker's task: (job id, function, positional and keyword arguments); None stops the worker.
Task = tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]
# What a worker sends back: ("event", Event), then one of ("done", the function's result),
# ("failed", the error and its traceback) or ("cancelled", None).
WorkerMessage = tuple[str, Any]


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

    def __init__(self, job_id: str, channel: Queue[WorkerMessage], cancel_flag: CancelFlag) -> None:
        self.job_id = job_id
        self._channel = channel
        self._cancel_flag = cancel_flag

    @property
    def cancelled(self) -> bool:
        return self._cancel_flag.is_set()

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


def _worker_loop(
    tasks: Queue[Task | None], channel: Queue[WorkerMessage], cancel_flag: CancelFlag
) -> None:
    """Runs in the worker process: one job after another until told to stop (None)."""
    while (task := tasks.get()) is not None:
        job_id, function, args, kwargs = task
        reporter = Reporter(job_id, channel, cancel_flag)
        try:
            result = function(reporter, *args, **kwargs)
        except JobCancelled:
            channel.put(("cancelled", None))
        except BaseException as error:
            channel.put(("failed", f"{type(error).__name__}: {error}\n{traceback.format_exc()}"))
        else:
            try:  # the queue pickles in a background thread, where a failure would be lost
                ForkingPickler.dumps(result)
            except Exception as error:
                channel.put(("failed", f"the result cannot be sent back ({error})"))
            else:
                channel.put(("done", result))


class Worker:
    """A spawned process with its task queue, event channel and cancel flag."""

    def __init__(self) -> None:
        self.tasks: Queue[Task | None] = _SPAWN.Queue()
        self.channel: Queue[WorkerMessage] = _SPAWN.Queue()
        self.cancel_flag = _SPAWN.Event()
        self.process = _SPAWN.Process(
            target=_worker_loop, args=(self.tasks, self.channel, self.cancel_flag), daemon=True
        )
        self.process.start()

    def stop(self) -> None:
        self.tasks.put(None)


class Job(Generic[T]):
    """One submitted call of a job function; `result` is what that function returned."""

    def __init__(self, title: str, bus: EventBus, release: Callable[[Worker], None]) -> None:
        self.id = f"job-{next(_numbers)}"
        self.title = title
        self.state = JobState.RUNNING
        self.error = ""
        self._bus = bus
        self._release = release  # gives a healthy worker back to the runner
        self._returned: tuple[T] | None = None  # boxed: None is a result a job may return
        self._finished = threading.Event()
        self._cancel_asked = False
        self._worker: Worker | None = None

    @property
    def _process(self) -> SpawnProcess | None:
        return self._worker.process if self._worker else None

    def start(
        self,
        worker: Worker,
        function: Callable[..., T],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Job[T]:
        self._worker = worker
        worker.cancel_flag.clear()
        self._bus.publish(JobStarted(source=self.id, job_id=self.id, title=self.title))
        worker.tasks.put((self.id, function, args, kwargs))
        threading.Thread(
            target=self._monitor, args=(worker,), name=f"{self.id}-monitor", daemon=True
        ).start()
        return self

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._finished.wait(timeout)

    def result(self, timeout: float | None = None) -> T:
        if not self._finished.wait(timeout):
            raise TimeoutError(f"{self.title} is still running")
        if self.state is JobState.CANCELLED:
            raise JobCancelled(self.title)
        if self.state is JobState.FAILED:
            raise JobFailed(f"{self.title} failed: {self.error}")
        if self._returned is None:  # a job that is done has sent its result
            raise JobFailed(f"{self.title} finished without sending its result")
        return self._returned[0]

    def cancel(self) -> None:
        if self.done or self._worker is None:
            return
        self._cancel_asked = True
        self._worker.cancel_flag.set()
        threading.Thread(target=self._enforce_cancel, args=(self._worker,), daemon=True).start()

    def _enforce_cancel(self, worker: Worker) -> None:
        # only the monitor thread reaps the process (concurrent joins race on waitpid); here we
        # just watch its sentinel. A cancelled job's worker goes, polite or not.
        process = worker.process
        for stop in (process.terminate, process.kill):
            if wait_for([process.sentinel], GRACE_S):
                return
            stop()

    def _monitor(self, worker: Worker) -> None:
        while True:
            try:
                kind, payload = worker.channel.get(timeout=POLL_S)
            except queue.Empty:
                if worker.process.is_alive():
                    continue
                # a worker that was terminated sent no final message: do not wait long for one
                try:
                    kind, payload = worker.channel.get(timeout=0.01)
                except queue.Empty:
                    reason = f"worker exited with code {worker.process.exitcode}"
                    self._finish(
                        worker,
                        JobState.CANCELLED if self._cancel_asked else JobState.FAILED,
                        "" if self._cancel_asked else reason,
                        keep_worker=False,
                    )
                    return
            if kind == "event":
                self._bus.publish(payload)
                continue
            if kind == "done":
                self._returned = (payload,)
            self._finish(
                worker,
                JobState(kind),
                payload if kind == "failed" else "",
                keep_worker=not self._cancel_asked,
            )
            return

    def _finish(self, worker: Worker, state: JobState, error: str, keep_worker: bool) -> None:
        """A kept worker goes back to the runner; any other is reaped before the job ends, so a
        finished job never leaves a process behind."""
        process = worker.process
        if keep_worker:
            self._release(worker)
        else:
            process.join(EXIT_S)  # a cancelled worker is being terminated by _enforce_cancel
            if process.is_alive():
                process.kill()
                process.join()
        self.state, self.error = state, error
        self._finished.set()
        self._bus.publish(JobFinished(source=self.id, job_id=self.id, status=state, error=error))


class JobRunner:
    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._jobs: dict[str, Job[Any]] = {}
        self._idle: list[Worker] = []
        self._lock = threading.Lock()
        self._closed = False

    def submit(
        self, function: Callable[..., T], *args: Any, title: str = "", **kwargs: Any
    ) -> Job[T]:
        """Run `function(reporter, *args, **kwargs)` in a worker process (see the module)."""
        job: Job[T] = Job(title or getattr(function, "__name__", "job"), self._bus, self._release)
        self._jobs[job.id] = job
        return job.start(self._worker(), function, args, kwargs)

    def _worker(self) -> Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker
        return Worker()

    def _release(self, worker: Worker) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < MAX_IDLE_WORKERS:
                self._idle.append(worker)
                return
        worker.stop()

    def get(self, job_id: str) -> Job[Any] | None:
        return self._jobs.get(job_id)

    def running(self) -> list[Job[Any]]:
        return [job for job in self._jobs.values() if not job.done]

    def cancel_all(self) -> None:
        for job in self.running():
            job.cancel()

    def close(self) -> None:
        """Cancel what runs and let the warm workers go."""
        self.cancel_all()
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.stop()
