"""Arrays submitted elsewhere (issue 28), on the real cluster: followed and cancelled by their
array id while squeue shows `ID_[0-999]`, and a finished array's fallback (no squeue any more)
reports the task that failed, not COMPLETED 0:0."""

from __future__ import annotations

import time
from pathlib import Path

from tests.hpc.tool_support import call, result_of
from tests.rigs.slurm_cluster import SlurmCluster
from workbench.core.context import AppContext
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.slurm.client import SlurmClient, group_by_job
from workbench_plugins.hpc.slurm.jobs import JobState
from workbench_plugins.hpc.slurm.tracker import summarize
from workbench_plugins.hpc.ssh.pool import SshPool

HOST = "local"


def sbatch_elsewhere(rig: SlurmCluster, folder: Path, array: str, command: str) -> str:
    """An array submitted on the cluster itself (a terminal there), not through the app."""
    folder.mkdir(parents=True, exist_ok=True)
    done = rig.run(
        "sbatch", "--parsable", f"--array={array}", f"--chdir={folder}", "--wrap", command
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_array_is_followed_and_cancelled_by_its_id(
    hpc_app: AppContext, slurm_rig: SlurmCluster, tmp_path: Path
) -> None:
    job_id = sbatch_elsewhere(slurm_rig, tmp_path / "big", "0-999%2", "sleep 60")
    assert f"{job_id}_[" in slurm_rig.run("squeue", "-h", "-j", job_id, "-o", "%i").stdout
    status = result_of(call(hpc_app, "get_slurm_job_status", job_id=job_id))
    assert status["job_id"] == job_id and status["state"] in ("PENDING", "RUNNING")
    cancelled = result_of(call(hpc_app, "cancel_slurm_job", confirmed=True, job_id=job_id))
    assert cancelled["job_id"] == job_id
    final = result_of(
        call(hpc_app, "monitor_job_until_complete", job_id=job_id, check_interval=1, max_checks=30)
    )
    assert final["state"] == "CANCELLED"
    left = slurm_rig.run("squeue", "-h", "-t", "PENDING,RUNNING", "-j", job_id, "-o", "%i")
    assert left.stdout.strip() == ""  # every task, pending ones included, was cancelled


def test_a_finished_arrays_fallback_reports_the_failed_task(
    ssh_pool: SshPool, hpc_settings: HpcSettings, slurm_rig: SlurmCluster, tmp_path: Path
) -> None:
    command = 'if [ "$SLURM_ARRAY_TASK_ID" = 2 ]; then exit 3; fi; sleep 1'
    job_id = sbatch_elsewhere(slurm_rig, tmp_path / "small", "0-3", command)
    client = SlurmClient(ssh_pool.shell(HOST))
    deadline = time.monotonic() + 60
    while not all(row.state.finished for row in client.states([job_id]).values()):
        assert time.monotonic() < deadline, "the array did not finish"
        time.sleep(0.5)
    # squeue forgets a job after MinJobAge (300 s on the rig): then only the fallback answers
    rows = client.finished([job_id])
    assert sorted(row.job_id for row in rows) == [f"{job_id}_{task}" for task in range(4)]
    tasks = group_by_job({row.job_id: row for row in rows})[job_id]
    summary = summarize(tasks)
    assert (summary.state, summary.exit_code) == (JobState.FAILED, "3:0")
    (one,) = client.finished([f"{job_id}_1"])
    assert one.state is JobState.COMPLETED and one.exit_code == "0:0"
