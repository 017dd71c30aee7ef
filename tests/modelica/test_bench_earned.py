"""Issue 27 (Modelica): the suite's score is earned. `passed` is bound to the submitted bytes (a
changed submission.json zeroes it); `offtarget:variant` on a repair task submits an executable
but behaviourally wrong repair, not the faulty input again; the two policies that cheat score
`passed` 0 through the `bench` command (the whole grid, reference included, is checked by the
suite's validation in test_bench_suite.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from workbench.bench.earned import CHEATS
from workbench.bench.results import read_cells
from workbench.bench.runner import PlannedCell, run_bench
from workbench.core.context import AppContext
from workbench_plugins.modelica.bench import suite as suite_module
from workbench_plugins.modelica.bench.policies import DRIFT, answer_of, drifted_repair
from workbench_plugins.modelica.bench.suite import SUBMISSION, ModelicaSuite
from workbench_plugins.modelica.task_packages.contract import ModelAnswer
from workbench_plugins.modelica.task_packages.packages import TaskPackage


def repairs() -> list[TaskPackage]:
    packages = ModelicaSuite().packages.values()
    return [p for p in packages if p.task.task_type == "model_repair"]


def test_every_repair_task_has_a_variant_other_than_its_input_and_its_answer() -> None:
    derived = 0
    for package in repairs():
        variant = answer_of("offtarget:variant", package)
        assert isinstance(variant, ModelAnswer), package.task_id
        known = package.contract.known_valid
        assert isinstance(known, ModelAnswer)
        assert variant.final_model not in (known.final_model, package.task.initial_model)
        if not package.contract.off_target:
            derived += 1
            assert variant == drifted_repair(package)
            changed = [
                (old, new)
                for old, new in zip(
                    known.final_model.splitlines(), variant.final_model.splitlines(), strict=True
                )
                if old != new
            ]
            assert len(changed) == 1, changed  # one nominal value, and nothing else
            assert "parameter Real" in changed[0][0]
    assert derived > 0  # the task set has repairs without a variant of their own
    assert DRIFT != 1.0


def _run_reference(tmp_path: Path, patterns: str = "harness") -> dict[str, dict[str, Any]]:
    suite = ModelicaSuite()
    task = next(t for t in suite.smoke_tasks() if t.style == patterns)
    context = AppContext.open(workspace=tmp_path / "session")
    try:
        cell = PlannedCell(suite.name, task, "reference", 0)
        outcome = run_bench(context, {suite.name: suite}, [cell], tmp_path / "out")
    finally:
        context.close()
    assert outcome.errors == []
    return read_cells(tmp_path / "out")


def test_the_reference_passes_bound_to_the_bytes_it_submitted(
    tmp_path: Path, workbench_home: Path
) -> None:
    (record,) = _run_reference(tmp_path).values()
    assert record["scores"]["passed"] == 1.0
    assert "unbound" not in record["details"]
    assert len(record["details"]["bindings"]) == 2
    assert all("holds" in line for line in record["details"]["bindings"])


def _rewritten(path: Path) -> None:
    """The same submission in other bytes (what a tool or person editing it would leave)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(data, indent=4) + "\n", encoding="utf-8")


@pytest.mark.parametrize("when", ["before the evaluation", "after the evaluation"])
def test_a_submission_changed_after_the_run_zeroes_passed(
    tmp_path: Path, workbench_home: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    real_read, real_evaluate = suite_module.read_submission, suite_module.evaluate

    def read_changed(path: Path) -> Any:
        _rewritten(path)
        return real_read(path)

    def evaluate_then_change(package: Any, submission: Any, **kwargs: Any) -> Any:
        verdict = real_evaluate(package, submission, **kwargs)
        _rewritten(kwargs["work_dir"].parent / SUBMISSION)
        return verdict

    if when == "before the evaluation":
        monkeypatch.setattr(suite_module, "read_submission", read_changed)
    else:
        monkeypatch.setattr(suite_module, "evaluate", evaluate_then_change)
    (record,) = _run_reference(tmp_path).values()
    details = record["details"]
    assert details["failed_stage"] == ""  # the evaluator passed what it saw...
    assert record["scores"]["passed"] == 0.0  # ...but not the bytes the run submitted
    broken = "\n".join(details["unbound"])
    assert "at the end of the cell" in broken
    if when == "before the evaluation":
        assert "as the evaluator judged it" in broken


@pytest.mark.parametrize("cheat", CHEATS)
def test_a_cheat_scores_nothing_through_the_bench_command(
    tmp_path: Path, workbench_home: Path, cheat: str
) -> None:
    """`workbench --headless bench modelica --model CHEAT --examples 1`: one task of every
    workflow, difficulty and mode; the headline mean is 0 and the table says so."""
    out = tmp_path / "out"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "workbench", "--headless", "bench", "modelica"),
            *("--model", cheat, "--examples", "1", "--out", str(out)),
        ],
        env={**os.environ, "WORKBENCH_HOME": str(workbench_home)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    records = list(read_cells(out).values())
    assert len(records) == 18  # 3 workflows x 3 difficulties x 2 modes
    assert all(r["status"] == "ok" and r["scores"]["passed"] == 0.0 for r in records)
    assert not any(call["ok"] for r in records for call in r["details"]["tool_calls"])
    row = next(line for line in done.stdout.splitlines() if cheat in line)
    assert "passed 0" in row
    if cheat == "offtarget:fails-every-call":
        assert all(r["details"]["tool_calls"] for r in records)  # it did call, and was refused
    else:
        assert all(not r["details"]["tool_calls"] and r["details"]["answer"] for r in records)
