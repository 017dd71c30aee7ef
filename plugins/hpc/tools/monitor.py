"""monitor_job_until_complete: follow a job to its end, its progress on the app's bus.

The wait runs in the tool's own thread (the registry runs a synchronous tool off the event loop).
Each check publishes a JobProgress for the job ("slurm:<host>:<id>"), which the jobs bar and the
chat's tool card show, and the tracker publishes SlurmJobsUpdated for the queue view. A
JobCancelRequested for that id (a person's Cancel) stops the monitoring, not the Slurm job.
"""

from __future__ import annotations

import threading

from pydantic import Field

from workbench.core.events import JobCancelRequested, JobFinished, JobProgress, JobStarted
from workbench.core.tools import ToolContext
from workbench_plugins.hpc.slurm.jobs import TrackedJob
from workbench_plugins.hpc.tools.jobs import JobArgs, JobResult, followed, job_result, log_tail
from workbench_plugins.hpc.tools.support import remote_errors, services_for


class MonitorArgs(JobArgs):
    check_interval: float = Field(30, ge=1, le=3600, description="Seconds between checks")
    max_checks: int = Field(200, ge=1, le=100_000, description="Checks before giving up")


class MonitorResult(JobResult):
    finished: bool
    updates: int  # changes of state (or reason, exit code) seen while waiting


def progress_id(host: str, job_id: str) -> str:
    return f"slurm:{host}:{job_id}"


def monitor_job_until_complete(args: MonitorArgs, context: ToolContext) -> MonitorResult:
    job = followed(context, args.job_id, args.host)
    bus = context.app.bus
    ident = progress_id(job.host, job.job_id)
    cancelled = threading.Event()
    updates = 0

    def on_cancel(event: JobCancelRequested) -> None:
        if event.job_id == ident:
            cancelled.set()

    def on_update(update: TrackedJob) -> None:  # called when what the job shows changed
        nonlocal updates
        updates += 1
        bus.publish(
            JobProgress(
                job_id=ident,
                fraction=None,  # the job's length is unknown; its state is the news
                message=f"{update.state} {update.reason or ''} {update.elapsed or ''}".strip(),
                data={"host": update.host, "slurm_job": update.job_id, "state": str(update.state)},
            )
        )

    bus.publish(JobStarted(job_id=ident, title=f"Slurm job {job.job_id} on {job.host}"))
    unsubscribe = bus.subscribe(JobCancelRequested, on_cancel)
    status, error = "failed", ""
    try:
        with remote_errors(job.host):
            job = services_for(context.app).tracker.wait(
                job.host,
                job.job_id,
                args.check_interval,
                args.max_checks,
                on_update=on_update,
                cancelled=cancelled,
            )
        status = "cancelled" if cancelled.is_set() else "done"
    except Exception as failure:
        error = str(failure)
        raise
    finally:
        unsubscribe()
        bus.publish(JobFinished(job_id=ident, status=status, error=error))
    return MonitorResult(
        **job_result(job, _summary(job, cancelled.is_set()), log_tail(context, job)).model_dump(),
        finished=job.state.finished,
        updates=updates,
    )


def _summary(job: TrackedJob, cancelled: bool) -> str:
    if cancelled:
        return f"Monitoring of job {job.job_id} was cancelled; the job is {job.state}."
    if not job.state.finished and job.unreachable:
        return (
            f"Job {job.job_id} was {job.last_seen()}, but {job.host} could not be asked "
            f"({job.error}); call monitor_job_until_complete again once it answers."
        )
    if not job.state.finished:
        return (
            f"Job {job.job_id} is still {job.state} after the checks ran out; call "
            "monitor_job_until_complete again to keep waiting."
        )
    if job.state == "COMPLETED":
        return f"Job {job.job_id} on {job.host} COMPLETED in {job.elapsed}; evaluate it next."
    return (
        f"Job {job.job_id} on {job.host} ended {job.state} (exit code {job.exit_code}); it has "
        "no model to evaluate. The log's end is in log_tail."
    )
