"""Evaluator validation: the reference must score TC = 1 on every cell and, wherever it designs,
IoU = objective = 1 (and constraint = 1 on Beams2D; Photonics2D has no constraint to score), with
every STL it exported still bound to its export; every off-target policy must push each score it
targets below that score's ceiling (policies.OFF_TARGET: TC, tool use, or the design-quality
terms) on every cell it targets; and the two policies that cheat (fails-every-call,
claims-without-work: workbench.bench.earned) must score 0 on the headline (combined, TC) on every
cell. Runs through the bench runner, so the folder also gets results, summary and report. Exits
non-zero when any check fails.

    python -m workbench_plugins.topopt.bench.validate [--out DIR] [--seeds 0 1] [--examples 2]
        [--photonics]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.bench.earned import CHEATS
from workbench.bench.runner import PlannedCell, run_bench
from workbench.bench.validation import (
    Validation,
    check_cheat,
    finished_cells,
    in_bench_workspace,
    print_verdict,
)
from workbench.core.context import AppContext
from workbench_plugins.topopt.bench import report, tasks
from workbench_plugins.topopt.bench.policies import OFF_TARGET
from workbench_plugins.topopt.bench.suite import WorkflowSuite


@dataclass(frozen=True)
class Grid:
    seeds: tuple[int, ...] = (0,)
    examples: tuple[int, ...] = (0,)
    problems: tuple[str, ...] = ("beams2d",)
    # redundant calls are checked on every targeted style unless narrowed (CI: one style)
    redundant_styles: tuple[str, ...] | None = None


# Both problems, seed 0, example 0: 10 reference cells, 18 off-target and 20 cheating ones.
CI_GRID = Grid(problems=tasks.PROBLEMS, redundant_styles=("W-RAND",))
# The reference's design is the ground truth; its mean density misses volfrac by ~1e-6 (the
# optimiser's bisection), which costs the constraint score ~1e-4.
REFERENCE_TOLERANCE = 1e-3


def plan_cells(grid: Grid) -> tuple[dict[str, WorkflowSuite], list[PlannedCell]]:
    suites = {p: WorkflowSuite(p) for p in grid.problems}
    cells = []
    for suite in suites.values():
        for task in suite.tasks():
            if int(task.payload["example"]) not in grid.examples:
                continue
            models = ["reference", *CHEATS]
            for name, target in OFF_TARGET.items():
                styles = target.styles
                if name == "redundant-calls" and grid.redundant_styles is not None:
                    styles = grid.redundant_styles
                if target.targets(task.problem, task.style) and task.style in styles:
                    models.append(f"offtarget:{name}")
            cells += [PlannedCell(suite.name, task, m, s) for m in models for s in grid.seeds]
    return {suite.name: suite for suite in suites.values()}, cells


def validate(context: AppContext, out: Path, grid: Grid = CI_GRID) -> Validation:
    suites, cells = plan_cells(grid)
    outcome = run_bench(context, dict(suites), cells, out)
    report.write_report(out)
    result = Validation(out, failures=list(outcome.errors))
    records = {r["key"]: r for r in report.workflow_cells(out)}
    for cell, record in finished_cells(result, cells, records):
        if cell.model == "reference":
            result.failures += reference_failures(cell.key, cell.task.problem, record["scores"])
            result.failures += unbound_failures(cell.key, record["details"])
        elif cell.model in CHEATS:
            check_cheat(result, cell, record["scores"], suites[cell.suite].headline)
        else:
            check_off_target(result, cell, record["scores"])
    return result


def unbound_failures(key: str, details: dict[str, Any]) -> list[str]:
    """The reference's STL files must still be the ones its exports wrote."""
    return [f"{key}: the reference's binding broke: {line}" for line in details.get("unbound", [])]


def reference_failures(key: str, problem: str, scores: dict[str, float]) -> list[str]:
    """TC = 1 everywhere; where it designs, its design is the ground truth: full marks."""
    failures = [] if scores["task_completion"] == 1.0 else [f"{key}: the reference scored TC = 0"]
    if not scores.get("design_found"):
        return failures  # NATURAL: it abstains
    full = ["iou", "objective"] + (["constraint"] if problem == "beams2d" else [])
    for name in full:
        if scores[name] < 1.0 - REFERENCE_TOLERANCE:
            failures.append(f"{key}: the reference scored {name} = {scores[name]:.4f} < 1")
    return failures


def check_off_target(result: Validation, cell: PlannedCell, scores: dict[str, float]) -> None:
    key, model = cell.key, cell.model
    target = OFF_TARGET[model.removeprefix("offtarget:")]
    for name, ceiling in target.checks_for(cell.task.problem).items():
        if name not in scores:  # a term with nothing to measure here: a check that cannot hold
            result.failures.append(f"{key}: {name} is not scored on {cell.task.problem}")
            continue
        line = f"{key}: {name} = {scores[name]:.4f} (must be < {ceiling:g})"
        result.measured.append(line)
        if scores[name] >= ceiling:
            result.failures.append(f"{line} but {model} ({target.about}) did not fall below it")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Validate the workflow benchmark's evaluators.")
    parser.add_argument("--out", type=Path, default=Path("bench-results/workflow-validation"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--examples", type=int, default=1, help="examples 0..N-1")
    parser.add_argument("--photonics", action="store_true", help="also Photonics2D (slow)")
    args = parser.parse_args(argv)
    grid = Grid(
        seeds=tuple(args.seeds),
        examples=tuple(range(args.examples)),
        problems=tasks.PROBLEMS if args.photonics else ("beams2d",),
        # the tool-use scorer does not depend on the style: one style keeps the grid short
        redundant_styles=CI_GRID.redundant_styles,
    )
    result = in_bench_workspace(args.out, lambda context: validate(context, args.out, grid))
    return print_verdict(result, f"; report {args.out}/report.html")


if __name__ == "__main__":
    raise SystemExit(main())
