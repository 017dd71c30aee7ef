"""JobTracker against the real Slurm rig: following jobs across dropped SSH connections, a
restarted slurmctld and a restarted app (a new tracker over the same workspace store)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from tests.hpc.conftest import HOST
from tests.rigs.slurm_cluster import SlurmCluster
from workbench.core.events import Event
from workbench.core.store import Store
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.events import SlurmJobsUpdated
from workbench_plugins.hpc.slurm.client import SlurmClient
from workbench_plugins.hpc.slurm.jobs import JobState, TrackedJob
from workbench_plugins.hpc.slurm.script import JobSpec, render_script
from workbench_plugins.hpc.slurm.tracker import RUN_KIND, JobTracker

if TYPE_CHECKING:
    from workbench_plugins.hpc.ssh.pool import SshPool

GOING = {JobState.PENDING, JobState.RUNNING, JobState.COMPLETING}


def submit(pool: SshPool, settings: HpcSettings, folder: str, seconds: int) -> tuple[str, str]:
    """Submit `sleep seconds; echo done`; return (job id, log path)."""
    workdir = str(Path(settings.hosts[0].remote_root) / folder)
    spec = JobSpec(
        name=f"wb-{folder}", command=["bash", "-c", f"sleep {seconds}; echo done"], workdir=workdir
    )
    job_id = SlurmClient(pool.shell(HOST)).submit(render_script(spec), workdir, name=spec.name)
    return job_id, f"{workdir}/slurm-{job_id}.out"


def test_follows_a_job_to_its_end_and_keeps_it_in_the_store(
    ssh_pool: SshPool, hpc_settings: HpcSettings, tmp_path: Path
) -> None:
    events: list[Event] = []
    store = Store(tmp_path / "workspace")
    tracker = JobTracker(store, ssh_pool.shell, events.append)
    job_id, log_path = submit(ssh_pool, hpc_settings, "follow", 2)
    tracker.track(HOST, job_id, {"log_path": log_path, "recipe": "smoke"})
    seen: list[TrackedJob] = []
    job = tracker.wait(HOST, job_id, interval=0.5, max_checks=120, on_update=seen.append)
    assert (job.state, job.exit_code, job.name) == (JobState.COMPLETED, "0:0", "wb-follow")
    assert seen[-1].state is JobState.COMPLETED and {s.state for s in seen[:-1]} <= GOING
    assert all(isinstance(event, SlurmJobsUpdated) for event in events) and events
    (run,) = store.runs(RUN_KIND)
    assert run["status"] == "completed" and run["finished"] is not None
    assert run["meta"]["meta"] == {"log_path": log_path, "recipe": "smoke"}
    assert SlurmClient(ssh_pool.shell(HOST)).tail(job.log_path)[0] == "done\n"
    assert tracker.tracked(active_only=True) == []


def test_one_squeue_per_poll_covers_every_tracked_job(
    ssh_pool: SshPool, hpc_settings: HpcSettings, tmp_path: Path
) -> None:
    tracker = JobTracker(Store(tmp_path / "workspace"), ssh_pool.shell)
    ids = [submit(ssh_pool, hpc_settings, f"many{index}", 1)[0] for index in range(3)]
    for job_id in ids:
        tracker.track(HOST, job_id)
    for _ in range(120):
        if all(job.finished for job in tracker.poll()):
            break
    assert {job.job_id: job.state for job in tracker.tracked()} == dict.fromkeys(
        ids, JobState.COMPLETED
    )


def test_monitoring_reconnects_after_the_ssh_connection_is_killed(
    ssh_pool: SshPool, hpc_settings: HpcSettings, slurm_rig: SlurmCluster, tmp_path: Path
) -> None:
    tracker = JobTracker(Store(tmp_path / "workspace"), ssh_pool.shell)
    job_id, _ = submit(ssh_pool, hpc_settings, "drop", 3)
    dropped: list[int] = []

    def drop_once(job: TrackedJob) -> None:
        if not dropped:
            dropped.append(slurm_rig.drop_ssh_connections())

    job = tracker.wait(HOST, job_id, interval=0.5, max_checks=120, on_update=drop_once)
    assert dropped and dropped[0] >= 1  # there was a live connection to kill
    assert job.state is JobState.COMPLETED and not job.unreachable


def test_tracked_jobs_survive_a_slurmctld_restart(
    ssh_pool: SshPool, hpc_settings: HpcSettings, slurm_rig: SlurmCluster, tmp_path: Path
) -> None:
    tracker = JobTracker(Store(tmp_path / "workspace"), ssh_pool.shell)
    job_id, _ = submit(ssh_pool, hpc_settings, "restart", 3)
    seen: list[TrackedJob] = []
    restarter = threading.Thread(target=slurm_rig.restart_controller)

    def restart_once(job: TrackedJob) -> None:
        seen.append(job)
        if not restarter.is_alive() and len(seen) == 1:
            restarter.start()  # squeue fails while the controller is down

    try:
        job = tracker.wait(HOST, job_id, interval=0.3, max_checks=300, on_update=restart_once)
    finally:
        if restarter.ident is not None:
            restarter.join()
    assert job.state is JobState.COMPLETED, job
    # while the controller was away the job kept its last state: never failed, never unknown
    assert {s.state for s in seen[:-1]} <= GOING


def test_a_restarted_app_still_follows_the_job(
    ssh_pool: SshPool, hpc_settings: HpcSettings, tmp_path: Path
) -> None:
    folder = tmp_path / "workspace"
    first = JobTracker(Store(folder), ssh_pool.shell)
    job_id, _ = submit(ssh_pool, hpc_settings, "app-restart", 2)
    first.track(HOST, job_id, {"name": "the run"})
    assert first.poll()[0].state in GOING
    first.store.close()

    store = Store(folder)
    second = JobTracker(store, ssh_pool.shell)
    (job,) = second.tracked(active_only=True)
    assert (job.job_id, job.name) == (job_id, "the run")
    job = second.wait(HOST, job_id, interval=0.5, max_checks=120)
    assert job.state is JobState.COMPLETED
    assert [run["status"] for run in store.runs(RUN_KIND)] == ["completed"]


def test_wait_stops_when_asked(
    ssh_pool: SshPool, hpc_settings: HpcSettings, tmp_path: Path
) -> None:
    tracker = JobTracker(Store(tmp_path / "workspace"), ssh_pool.shell)
    job_id, _ = submit(ssh_pool, hpc_settings, "stop", 3)
    stop = threading.Event()
    job = tracker.wait(
        HOST, job_id, interval=0.2, max_checks=1000, on_update=lambda _: stop.set(), cancelled=stop
    )
    assert job.state in GOING  # it returned at once, with the job still going
    SlurmClient(ssh_pool.shell(HOST)).cancel(job_id)
    assert tracker.wait(HOST, job_id, interval=0.3, max_checks=100).state is JobState.CANCELLED


def stop_controller(rig: SlurmCluster) -> None:
    if hasattr(rig, "stop_controller"):
        rig.stop_controller()
    else:  # until the rig has it (requested): the first half of restart_controller
        from tests.rigs.slurm_cluster import _terminate

        _terminate(rig.processes.pop("slurmctld"))


def start_controller(rig: SlurmCluster) -> None:
    if hasattr(rig, "start_controller"):
        rig.start_controller()
    else:
        rig._start_slurmctld()
        rig._wait_until_node_idle(any_state=True)


def test_a_controller_outage_marks_jobs_unreachable_not_failed(
    ssh_pool: SshPool, hpc_settings: HpcSettings, slurm_rig: SlurmCluster, tmp_path: Path
) -> None:
    """squeue fails while slurmctld is down (after ~9 s of its own retries): the job keeps its
    last state, is marked unreachable, and is followed to its end once the controller is back."""
    tracker = JobTracker(Store(tmp_path / "workspace"), ssh_pool.shell)
    job_id, _ = submit(ssh_pool, hpc_settings, "outage", 2)
    before = tracker.track(HOST, job_id)
    stop_controller(slurm_rig)
    try:
        (during,) = tracker.poll()
    finally:
        start_controller(slurm_rig)
    assert during.unreachable and during.state is before.state
    assert "controller" in during.error
    job = tracker.wait(HOST, job_id, interval=0.5, max_checks=120)
    assert job.state is JobState.COMPLETED and not job.unreachable
