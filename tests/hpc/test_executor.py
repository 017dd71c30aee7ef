"""`bench --executor slurm`: the cells as one job array on the real test cluster (over SSH),
gathered into the same summary as a local run; re-attached after a kill; nothing resubmitted
when everything is done; Ctrl-C twice cancels the array."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from workbench.bench.results import read_cells

if TYPE_CHECKING:
    from workbench_plugins.hpc.config import HpcSettings
    from workbench_plugins.hpc.ssh.pool import SshPool

from tests.hpc.conftest import HOST

# an optimisation (with a design and an STL the report reads) and an abstention
GRID = ["workflow-beams2d", "--model", "reference"]
GRID += ["--tasks", "beams2d/W-COND/e0,beams2d/NATURAL/e0"]
STATE = "slurm-array.json"


@pytest.fixture
def home(hpc_settings: HpcSettings, tmp_path: Path) -> Path:
    """A WORKBENCH_HOME whose settings name the test cluster as host "local"."""
    from workbench.core.paths import HOME_VARIABLE, app_paths
    from workbench.core.settings import Settings, save_settings

    folder = tmp_path / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(folder))
        paths = app_paths().ensure()
    save_settings(Settings().with_plugin("hpc", hpc_settings), paths.settings_file)
    return folder


def bench(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", "--headless", "bench", *GRID, *args],
        env={**os.environ, "WORKBENCH_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def finish(process: subprocess.Popen[str], timeout: float = 600) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    return process.returncode, err


def wait_for(path: Path, process: subprocess.Popen[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            _, err = process.communicate()
            pytest.fail(f"{path.name} never appeared: {err[-3000:]}")
        time.sleep(0.1)


def scored(out: Path) -> list[dict]:
    """summary.json's groups with their mean scores, without timings."""
    groups = json.loads((out / "summary.json").read_text())["groups"]
    for group in groups:
        group["mean"] = {
            name: value
            for name, value in group["mean"].items()
            if not name.endswith(("_s", "seconds"))
        }
    return groups


def assert_same_scores(ours: list[dict], theirs: list[dict]) -> None:
    """The same groups and means. A mean may differ in its last bits (summed in another order on
    the cluster): compared with pytest.approx, as rounding flakes at a rounding boundary."""
    assert len(ours) == len(theirs)
    for mine, other in zip(ours, theirs, strict=True):
        assert {**mine, "mean": None} == {**other, "mean": None}
        assert mine["mean"] == pytest.approx(other["mean"], rel=1e-9, abs=1e-9, nan_ok=True)


def array_jobs(pool: SshPool) -> set[str]:
    """Every bench array the cluster still knows (ended ones included)."""
    shell = pool.shell(HOST)
    listing = shell.run(["squeue", "-t", "all", "-h", "-n", "wb-bench", "-o", "%A"])
    return set(listing.check("squeue").stdout.split())


def test_slurm_run_equals_local_run_and_resumes(
    home: Path, ssh_pool: SshPool, tmp_path: Path
) -> None:
    local, remote = tmp_path / "local", tmp_path / "slurm"
    code, err = finish(bench(home, "--out", str(local)))
    assert code == 0, err

    # killed once its array is submitted: the rerun re-attaches to that array
    first = bench(home, "--out", str(remote), "--executor", "slurm", "--host", HOST)
    wait_for(remote / STATE, first)
    submitted = json.loads((remote / STATE).read_text())["job_id"]
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate()
    code, err = finish(bench(home, "--out", str(remote), "--executor", "slurm", "--host", HOST))
    assert code == 0, err
    assert f"Re-attaching to Slurm array {submitted}" in err and "Submitted" not in err
    assert not (remote / STATE).exists()

    assert_same_scores(scored(remote), scored(local))
    assert len(scored(local)) == 2
    cells = read_cells(remote)
    assert {c["status"] for c in cells.values()} == {"ok"} and len(cells) == 2
    assert {c["slurm_job"].split("_")[0] for c in cells.values()} == {f"{HOST}:{submitted}"}
    # the cells' folders came back: the report and its design files are here as locally
    assert (remote / "report.html").exists()
    assert sorted(p.name for p in (remote / "cells").glob("*/designs.npz")) == ["designs.npz"]

    before = array_jobs(ssh_pool)
    code, err = finish(bench(home, "--out", str(remote), "--executor", "slurm", "--host", HOST))
    assert code == 0, err
    assert "2 already done, 0 computed" in err and "Submitted" not in err
    assert array_jobs(ssh_pool) == before  # no new job


def test_ctrl_c_twice_cancels_the_array(home: Path, ssh_pool: SshPool, tmp_path: Path) -> None:
    from workbench_plugins.hpc.slurm.client import SlurmClient

    out = tmp_path / "slurm"
    running = bench(home, "--out", str(out), "--executor", "slurm", "--host", HOST)
    wait_for(out / STATE, running)
    job = json.loads((out / STATE).read_text())["job_id"]
    running.send_signal(signal.SIGINT)
    time.sleep(1.0)
    assert running.poll() is None  # the first Ctrl-C only warns
    running.send_signal(signal.SIGINT)
    code, err = finish(running, timeout=120)
    assert code == 130, err
    assert "Press Ctrl-C again to cancel the cluster jobs; the results so far are kept." in err
    assert f"Cancelled Slurm array {job}" in err
    assert not (out / STATE).exists()  # nothing to re-attach to
    rows = SlurmClient(ssh_pool.shell(HOST)).states([job])
    deadline = time.monotonic() + 30
    while not all(row.state.finished for row in rows.values()) and time.monotonic() < deadline:
        time.sleep(0.5)
        rows = SlurmClient(ssh_pool.shell(HOST)).states([job])
    assert rows and {row.state.value for row in rows.values()} <= {"CANCELLED", "COMPLETED"}
    assert "CANCELLED" in {row.state.value for row in rows.values()}


def test_unknown_host_and_missing_host_are_clear_errors(home: Path, tmp_path: Path) -> None:
    code, err = finish(bench(home, "--out", str(tmp_path / "a"), "--executor", "slurm"))
    assert code == 2 and "--executor slurm needs --host NAME" in err
    code, err = finish(bench(home, "--out", str(tmp_path / "b"), "--executor", "grid"))
    assert code == 2 and "Unknown executor 'grid'" in err and "slurm" in err


def test_a_task_that_dies_without_a_result_is_an_error_naming_its_state_and_log(
    home: Path, tmp_path: Path
) -> None:
    """A python on the cluster that imports the project but dies running a cell (a broken
    install): each cell is an error record with the task's Slurm state, exit code and log."""
    broken = tmp_path / "broken-python"
    broken.write_text(
        "#!/bin/sh\n"
        'if [ "$3" = run-cell ]; then echo "cell runner broke" >&2; exit 3; fi\n'
        f'exec {sys.executable} "$@"\n'
    )
    broken.chmod(0o755)
    out = tmp_path / "slurm"
    args = ["--out", str(out), "--executor", "slurm", "--host", HOST]
    code, err = finish(bench(home, *args, "--remote-python", str(broken)))
    assert code == 1, err
    cells = read_cells(out)
    assert len(cells) == 2 and {c["status"] for c in cells.values()} == {"error"}
    for cell in cells.values():
        assert "ended FAILED (exit code 3:0) without a result" in cell["error"]
        log = cell["error"].rsplit(f"{HOST}:", 1)[1]
        assert "cell runner broke" in Path(log).read_text()  # the cluster is this machine
