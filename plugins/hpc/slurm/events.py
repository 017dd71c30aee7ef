"""The Slurm layer's event (re-exported by workbench_plugins.hpc.events; no Qt here)."""

from __future__ import annotations

from workbench.core.events import Event
from workbench_plugins.hpc.slurm.jobs import JobRow, TrackedJob


class SlurmJobsUpdated(Event):
    """After each poll of the tracker: the tracked jobs it polled, as they are now.

    `jobs` are the followed jobs (an array's tasks in `TrackedJob.tasks`); `rows` every queue row
    the poll saw; `unreachable_hosts` the hosts (or controllers) that did not answer this time,
    whose jobs keep their last state.
    """

    source: str = "hpc"
    jobs: tuple[TrackedJob, ...] = ()
    rows: tuple[JobRow, ...] = ()
    unreachable_hosts: tuple[str, ...] = ()
