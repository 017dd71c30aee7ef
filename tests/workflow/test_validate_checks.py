"""The validator's verdicts on hand-made scores, and what the design-quality off-target policies
change about the reference's play (the grid itself runs in CI through the validate CLI)."""

from __future__ import annotations

from pathlib import Path

from workbench.bench import BenchTask
from workbench.bench.earned import CHEATS, CLAIMS_WITHOUT_WORK, FAILS_EVERY_CALL
from workbench.bench.runner import PlannedCell
from workbench.bench.validation import Validation, check_cheat
from workbench_plugins.topopt.bench import policies, scoring, tasks
from workbench_plugins.topopt.bench.suite import WorkflowSuite
from workbench_plugins.topopt.bench.validate import (
    CI_GRID,
    check_off_target,
    plan_cells,
    reference_failures,
    unbound_failures,
)

FULL_MARKS = {"task_completion": 1.0, "design_found": 1.0, "iou": 1.0, "objective": 1.0}


def cell(problem: str, style: str, model: str) -> PlannedCell:
    task = BenchTask(f"{problem}/{style}/e0", problem=problem, style=style, payload={"example": 0})
    return PlannedCell(f"workflow-{problem}", task, model, 0)


def test_the_reference_must_keep_full_design_marks() -> None:
    beams = {**FULL_MARKS, "constraint": 0.99993}  # volfrac met to 1e-6
    assert reference_failures("k", "beams2d", beams) == []
    assert reference_failures("k", "photonics2d", {**FULL_MARKS, "constraint": 0.0}) == []
    for name in ("iou", "objective", "constraint"):
        [failure] = reference_failures("k", "beams2d", {**beams, name: 0.98})
        assert name in failure
    [failure] = reference_failures("k", "beams2d", {**beams, "task_completion": 0.0})
    assert "TC = 0" in failure
    abstained = {"task_completion": 1.0, "design_found": 0.0, "iou": 0.0, "objective": 0.0}
    assert reference_failures("k", "beams2d", abstained) == []  # NATURAL


def test_an_off_target_policy_fails_validation_unless_every_checked_score_falls() -> None:
    wrong = cell("beams2d", "FULL", "offtarget:wrong-volfrac")
    fell = {"constraint": 0.0, "iou": 0.75, "objective": 0.1}
    result = Validation(Path("."))
    check_off_target(result, wrong, fell)
    assert result.passed and len(result.measured) == 3
    for name in fell:
        result = Validation(Path("."))
        check_off_target(result, wrong, {**fell, name: 1.0})
        [failure] = result.failures
        assert f"{name} = 1.0000" in failure and "wrong-volfrac" in failure
    # Photonics2D's early stop is judged on its objective only (its layout hardly moves)
    early = cell("photonics2d", "W-RAND", "offtarget:early-stop")
    result = Validation(Path("."))
    check_off_target(result, early, {"iou": 0.97, "objective": 0.0})
    assert result.passed and result.measured == [f"{early.key}: objective = 0.0000 (must be < 0.5)"]


def test_the_ci_grid_holds_every_design_quality_policy() -> None:
    _, cells = plan_cells(CI_GRID)
    models = {(c.task.problem, c.task.style, c.model) for c in cells}
    for name in ("wrong-volfrac", "early-stop", "random-design", "random-export"):
        target = policies.OFF_TARGET[name]
        planned = {(p, s) for p, s, m in models if m == f"offtarget:{name}"}
        assert planned, name
        assert all(target.targets(p, s) for p, s in planned)
    assert ("photonics2d", "W-RAND", "offtarget:early-stop") in models
    assert not any(p == "photonics2d" and m == "offtarget:wrong-volfrac" for p, _, m in models)


def test_design_quality_mistakes_change_only_what_they_name() -> None:
    beams = tasks.build("beams2d", "FULL", 0, 0)  # volfrac 0.4
    assert policies.played_config(beams, "") == beams.config
    wrong = policies.played_config(beams, "wrong-volfrac")
    assert wrong == {**beams.config, "volfrac": 0.5}
    assert policies.played_config(beams, "early-stop") == {**beams.config, "max_iter": 5}
    photonics = tasks.build("photonics2d", "W-RAND", 0, 0)
    early = policies.played_config(photonics, "early-stop")
    assert early == {**photonics.config, "num_optimization_steps": 2}


def test_the_ci_grid_plays_both_cheats_on_every_cell() -> None:
    _, cells = plan_cells(CI_GRID)
    tasks_played = {(c.suite, c.task.id) for c in cells}
    for cheat in CHEATS:
        assert {(c.suite, c.task.id) for c in cells if c.model == cheat} == tasks_played


def test_a_cheat_fails_validation_unless_its_headline_is_zero() -> None:
    headline = WorkflowSuite.headline
    assert headline == ("combined", "task_completion")
    claims = cell("photonics2d", "W-COND", CLAIMS_WITHOUT_WORK)
    result = Validation(Path("."))
    check_cheat(result, claims, {"combined": 0.0, "task_completion": 0.0, "iou": 0.3}, headline)
    assert result.passed and len(result.measured) == 2
    refused = cell("beams2d", "W-RAND", FAILS_EVERY_CALL)
    result = Validation(Path("."))
    check_cheat(result, refused, {"combined": 0.2, "task_completion": 0.0}, headline)
    [failure] = result.failures
    assert "combined = 0.2000" in failure and "refuses" in failure


def test_the_reference_must_keep_its_stl_bound() -> None:
    assert unbound_failures("k", {"bindings": ["STL of design a: sha256 b holds"]}) == []
    [failure] = unbound_failures("k", {"unbound": ["STL of design a: expected b, found missing"]})
    assert "binding broke" in failure


def test_no_off_target_check_names_a_term_its_problem_does_not_score() -> None:
    """Photonics2D has no constraint, FULL and NATURAL no STL: a check on such a term could
    only fail (or, before, pass for nothing)."""
    for name, target in policies.OFF_TARGET.items():
        for problem in target.problems:
            for style in target.styles:
                if style not in tasks.styles(problem):
                    continue
                unmeasured = scoring.unmeasured_terms(tasks.build(problem, style, 0, 0))
                assert not set(target.checks_for(problem)) & set(unmeasured), (name, problem)
