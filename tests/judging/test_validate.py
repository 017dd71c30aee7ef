"""CI's validation of the EngJudge pipeline (`python -m workbench_plugins.judging.bench.validate`):
with the rubric judge, the reference scores >= 9 on every problem, the wrong governing equation
is capped at 3, SinglePass rates the wrong solution above EngJudge; a miss exits 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from workbench.bench.results import read_cells
from workbench.bench.validation import Validation
from workbench_plugins.judging.bench.validate import check_cell
from workbench_plugins.judging.problems.registry import families


def test_validation_passes_on_every_problem_with_the_rubric_judge(tmp_path: Path) -> None:
    out = tmp_path / "validation"
    command = ["-m", "workbench_plugins.judging.bench.validate", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, *command, "--seeds", "1"],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    cells = list(read_cells(out).values())
    assert len(cells) == 3 * len(families())  # every family, three policies
    by_policy: dict[str, list[dict[str, Any]]] = {}
    for cell in cells:
        by_policy.setdefault(cell["model"], []).append(cell["scores"])
    assert min(s["final"] for s in by_policy["reference"]) >= 9.0
    wrong = by_policy["offtarget:wrong-equation"]
    assert max(s["raw_ES"] for s in wrong) <= 3.0
    assert all(s["single_pass"] > s["final"] for s in wrong)
    assert {s["final"] for s in by_policy["offtarget:no-stages"]} == {0.0}
    assert f"validation passed: {len(cells)} cells checked" in done.stdout
    assert "judge rubric: a rule-based stand-in, not a model" in done.stdout
    assert all(cell["details"]["bindings"] and "unbound" not in cell["details"] for cell in cells)
    assert (out / "engjudge-report.md").is_file()


def record(final: float, raw_es: float, single: float, flags: list[str]) -> dict[str, Any]:
    return {
        "scores": {
            "final": final,
            "raw_ES": raw_es,
            "single_pass": single,
            "judge_failed": 0.0,
            "single_pass_failed": 0.0,
        },
        "details": {
            "bindings": ["text graded = solution.md as written: sha256 0123456789ab holds"],
            "judgements": {"ES": {"fatal": flags}},
            "judge_failures": [],
        },
    }


def test_a_lenient_judge_fails_the_validation() -> None:
    result = Validation(Path("."))
    check_cell(result, "reference", "ref", record(8.5, 10, 9, []))
    check_cell(result, "offtarget:wrong-equation", "wrong", record(9.5, 10, 9, []))
    assert not result.passed
    assert any("ref: the reference scored 8.500 < 9" in line for line in result.failures)
    assert any("wrong: ES not capped at 3" in line for line in result.failures)
    assert any(
        "wrong: the ES cap was not carried downstream: EngJudge 9.500 is not below the "
        "unpropagated mean 9.000" in line
        for line in result.failures
    )


def test_a_grade_not_bound_to_its_solution_file_fails_the_validation() -> None:
    tampered = record(10.0, 10, 10, [])
    tampered["details"]["unbound"] = ["solution.md after grading: expected sha256 0123, found 4567"]
    unbound = record(10.0, 10, 10, [])
    unbound["details"]["bindings"] = []
    result = Validation(Path("."))
    check_cell(result, "reference", "tampered", tampered)
    check_cell(result, "reference", "unbound", unbound)
    assert result.failures == [
        "tampered: the grade is not bound to the solution file: solution.md after grading: "
        "expected sha256 0123, found 4567",
        "unbound: the grade is not bound to the solution file: no binding recorded",
    ]
