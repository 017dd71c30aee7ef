"""Worker-process jobs: streamed events in order, results, failures, cancellation within 1 s."""

from __future__ import annotations

import time

import psutil
import pytest

from tests.core import jobs_functions
from workbench.core.events import EventBus, JobFinished, JobProgress, JobStarted
from workbench.core.jobs import JobCancelled, JobFailed, JobRunner, JobState


@pytest.fixture
def bus() -> EventBus:
    return EventBus()


def test_job_streams_progress_in_order_and_returns(bus: EventBus) -> None:
    events: list[object] = []
    for kind in (JobStarted, JobProgress, JobFinished):
        bus.subscribe(kind, events.append)
    job = JobRunner(bus).submit(jobs_functions.count_to, 300, title="count")
    assert job.result(timeout=30) == 300
    numbers = [e.data["number"] for e in events if isinstance(e, JobProgress)]
    assert numbers == list(range(300))
    assert isinstance(events[0], JobStarted) and events[0].title == "count"
    assert isinstance(events[-1], JobFinished) and events[-1].status == "done"


def test_failure_is_reported_with_its_cause(bus: EventBus) -> None:
    job = JobRunner(bus).submit(jobs_functions.explode)
    with pytest.raises(JobFailed, match="ValueError: bad mesh"):
        job.result(timeout=30)
    assert job.state is JobState.FAILED


@pytest.mark.parametrize(
    "function", [jobs_functions.spin_ignoring_cancel, jobs_functions.spin_politely]
)
def test_cancel_stops_a_cpu_job_within_one_second(bus: EventBus, function) -> None:
    job = JobRunner(bus).submit(function, 30.0)
    time.sleep(1.0)  # let it get going
    pid = job._process.pid
    assert psutil.pid_exists(pid)
    asked = time.perf_counter()
    job.cancel()
    assert job.wait(timeout=1.0), "job still running 1 s after cancel"
    assert time.perf_counter() - asked < 1.0 + 0.05
    assert not job._process.is_alive() and not psutil.pid_exists(pid)
    assert job.state is JobState.CANCELLED
    with pytest.raises(JobCancelled):
        job.result()


def test_a_finished_jobs_worker_is_reused_warm(bus: EventBus) -> None:
    runner = JobRunner(bus)
    first = runner.submit(jobs_functions.count_to, 3)
    assert first.result(timeout=30) == 3
    second = runner.submit(jobs_functions.count_to, 4)
    assert second.result(timeout=30) == 4
    assert second._process.pid == first._process.pid  # no new process, imports stay warm
    failed = runner.submit(jobs_functions.explode)
    with pytest.raises(JobFailed):
        failed.result(timeout=30)
    assert failed._process.pid == first._process.pid  # an ordinary failure keeps the worker
    runner.close()
    first._process.join(5)
    assert not first._process.is_alive()


def test_a_cancelled_jobs_worker_is_not_reused(bus: EventBus) -> None:
    runner = JobRunner(bus)
    cancelled = runner.submit(jobs_functions.spin_politely, 30.0)
    time.sleep(0.5)
    cancelled.cancel()
    assert cancelled.wait(timeout=1.0)
    after = runner.submit(jobs_functions.count_to, 2)
    assert after.result(timeout=30) == 2
    assert after._process.pid != cancelled._process.pid
    runner.close()


def test_a_result_that_cannot_be_sent_back_fails_clearly(bus: EventBus) -> None:
    runner = JobRunner(bus)
    job = runner.submit(jobs_functions.unpicklable_result)
    with pytest.raises(JobFailed, match="cannot be sent back"):
        job.result(timeout=30)
    runner.close()
