"""CI's gate on a bench run: `python -m workbench.bench.check_summary DIR --require ...`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from workbench.bench.results import append_cell, read_cells, write_summary


def record(task: str, model: str, tc: float | None, status: str = "ok") -> dict[str, Any]:
    return {
        "key": f"workflow-beams2d|{task}|{model}|0",
        "suite": "workflow-beams2d",
        "task": task,
        "problem": "beams2d",
        "style": task.split("/")[1],
        "condition": "",
        "model": model,
        "seed": 0,
        "status": status,
        "scores": {} if tc is None else {"task_completion": tc, "iou": 0.95},
    }


def results(folder: Path, *records: dict[str, Any]) -> Path:
    folder.mkdir()
    for cell in records:
        append_cell(folder, cell)
    write_summary(folder, list(read_cells(folder).values()))
    return folder


def check(folder: Path, *requirements: str) -> subprocess.CompletedProcess[str]:
    wanted = [arg for text in requirements for arg in ("--require", text)]
    return subprocess.run(
        [sys.executable, "-m", "workbench.bench.check_summary", str(folder), *wanted],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_every_cell_meeting_the_requirements_passes(tmp_path: Path) -> None:
    folder = results(
        tmp_path / "good",
        record("beams2d/W-RAND/e0", "reference", 1.0),
        record("beams2d/W-RAND/e1", "reference", 1.0),
        record("beams2d/FULL/e0", "reference", 1.0),
    )
    done = check(folder, "task_completion=1", "iou>=0.9")
    assert done.returncode == 0, done.stderr
    assert "passed" in done.stdout


def test_a_cell_with_task_completion_0_fails_and_is_named(tmp_path: Path) -> None:
    folder = results(
        tmp_path / "one-zero",
        record("beams2d/W-RAND/e0", "reference", 1.0),
        record("beams2d/W-RAND/e1", "reference", 0.0),  # the group's mean is 0.5
        record("beams2d/FULL/e0", "reference", 1.0),
    )
    done = check(folder, "task_completion=1")
    assert done.returncode == 1
    [failure] = done.stderr.splitlines()
    assert "W-RAND" in failure and "mean task_completion = 0.5" in failure
    assert "workflow-beams2d|beams2d/W-RAND/e1|reference|0" in failure
    assert "beams2d/W-RAND/e0" not in failure  # only the cell that missed
    assert check(folder, "iou>=0.9").returncode == 0  # the other score is fine


def test_harness_errors_missing_scores_and_empty_runs_fail(tmp_path: Path) -> None:
    errored = results(
        tmp_path / "errored",
        record("beams2d/W-RAND/e0", "reference", 1.0),
        record("beams2d/W-RAND/e1", "reference", None, status="error"),
    )
    done = check(errored, "task_completion=1")  # the mean of the scored cell alone is 1
    assert done.returncode == 1 and "1 harness error(s)" in done.stderr
    assert check(errored).returncode == 1  # no requirement: still no harness error allowed
    scored = results(tmp_path / "scored", record("beams2d/FULL/e0", "reference", 1.0))
    done = check(scored, "watertight=1")
    assert done.returncode == 1 and "no watertight score" in done.stderr
    empty = results(tmp_path / "empty")
    assert check(empty, "task_completion=1").returncode == 1


@pytest.mark.parametrize("requirement", ["task_completion", "tc=one", "=1"])
def test_unreadable_requirements_or_folders_exit_2(tmp_path: Path, requirement: str) -> None:
    folder = results(tmp_path / "good", record("beams2d/FULL/e0", "reference", 1.0))
    done = check(folder, requirement)
    assert done.returncode == 2 and "not a requirement" in done.stderr
    assert check(tmp_path / "missing", "task_completion=1").returncode == 2
