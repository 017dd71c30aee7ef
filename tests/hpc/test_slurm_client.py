"""SlurmClient against the real Slurm rig over SSH (RejectPolicy, the rig's known host key)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from tests.hpc.conftest import HOST
from tests.rigs.slurm_cluster import ClusterInfo
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.slurm.client import SlurmClient, rows_of
from workbench_plugins.hpc.slurm.jobs import JobRow, JobState
from workbench_plugins.hpc.slurm.script import JobSpec, render_script
from workbench_plugins.hpc.slurm.tracker import summarize

if TYPE_CHECKING:
    from workbench_plugins.hpc.ssh.pool import SshPool


def remote_dir(settings: HpcSettings, name: str) -> str:
    return str(Path(settings.hosts[0].remote_root) / name)


def submit(client: SlurmClient, folder: str, command: list[str], **fields: object) -> str:
    spec = JobSpec.model_validate(
        {"name": "wb-test", "command": command, "workdir": folder, "time_limit": "00:02:00"}
        | fields
    )
    return client.submit(render_script(spec), folder, name=spec.name)


def follow(client: SlurmClient, job_id: str, until_finished: bool = True) -> list[JobRow]:
    """The job's rows (one, or one per array task) once it has finished (polling ~60 s at most)."""
    rows: list[JobRow] = []
    for _ in range(120):
        rows = rows_of(client.states([job_id]), job_id)
        if rows and (not until_finished or summarize(rows).state.finished):
            return rows
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} did not finish: {rows}")


def test_submit_follow_to_completed_and_read_the_output(
    ssh_pool: SshPool, hpc_settings: HpcSettings
) -> None:
    client = SlurmClient(ssh_pool.shell(HOST))
    folder = remote_dir(hpc_settings, "hello")
    job_id = submit(client, folder, ["bash", "-c", "sleep 1; echo hello from $SLURM_JOB_ID"])
    (row,) = follow(client, job_id)
    assert (row.state, row.exit_code) == (JobState.COMPLETED, "0:0")
    text, offset = client.tail(f"{folder}/slurm-{job_id}.out")
    assert text == f"hello from {job_id}\n"
    assert client.tail(f"{folder}/slurm-{job_id}.out", offset) == ("", offset)


def test_a_failing_job_shows_failed_with_its_exit_code(
    ssh_pool: SshPool, hpc_settings: HpcSettings
) -> None:
    client = SlurmClient(ssh_pool.shell(HOST))
    job_id = submit(client, remote_dir(hpc_settings, "fail"), ["bash", "-c", "sleep 1; exit 3"])
    (row,) = follow(client, job_id)
    assert (row.state, row.exit_code, row.reason) == (JobState.FAILED, "3:0", "NonZeroExitCode")


def test_cancel_shows_cancelled_and_a_pending_job_says_why(
    ssh_pool: SshPool, hpc_settings: HpcSettings
) -> None:
    client = SlurmClient(ssh_pool.shell(HOST))
    folder = remote_dir(hpc_settings, "cancel")
    # more CPUs than the node has: Slurm keeps it pending and says why
    job_id = submit(client, folder, ["sleep", "30"], cpus=64)
    (pending,) = follow(client, job_id, until_finished=False)
    assert pending.state is JobState.PENDING and pending.reason
    client.cancel(job_id)
    (row,) = follow(client, job_id)
    assert row.state is JobState.CANCELLED


def test_an_array_maps_every_task(ssh_pool: SshPool, hpc_settings: HpcSettings) -> None:
    client = SlurmClient(ssh_pool.shell(HOST))
    folder = remote_dir(hpc_settings, "array")
    job_id = submit(
        client, folder, ["bash", "-c", "sleep 1; echo task $SLURM_ARRAY_TASK_ID"], array="0-3"
    )
    first = follow(client, job_id, until_finished=False)
    assert [row.array_task for row in first] == ["0", "1", "2", "3"]
    rows = follow(client, job_id)
    assert [(row.job_id, row.array_task, row.state) for row in rows] == [
        (f"{job_id}_{task}", str(task), JobState.COMPLETED) for task in range(4)
    ]
    text, _ = client.tail(f"{folder}/slurm-{job_id}_2.out")
    assert text == "task 2\n"


def test_a_name_with_blanks_and_quotes_survives_submit(
    ssh_pool: SshPool, hpc_settings: HpcSettings
) -> None:
    client = SlurmClient(ssh_pool.shell(HOST))
    name = 'it\'s a "quoted" job; echo pwned | cat'
    job_id = submit(client, remote_dir(hpc_settings, "names"), ["sleep", "3"], name=name)
    queued = {row.job_id: row.name for row in client.queue()}
    assert queued[job_id] == name
    (row,) = follow(client, job_id)
    assert (row.name, row.state) == (name, JobState.COMPLETED)


def test_partitions_and_qos_fill_the_forms(ssh_pool: SshPool, slurm_cluster: ClusterInfo) -> None:
    client = SlurmClient(ssh_pool.shell(HOST))
    assert client.partitions() == [slurm_cluster.partition]
    assert client.qos() == []  # the rig has no accounting database: no QOS, and no error


def test_states_of_unknown_ids_are_absent(ssh_pool: SshPool) -> None:
    client = SlurmClient(ssh_pool.shell(HOST))
    assert client.states(["999999"]) == {}
