"""Evaluator validation: the reference must score TC = 1 on every cell, and every off-target
policy must fail the score it targets (TC, or tool use for redundant calls) on every cell it
targets. Runs through the bench runner, so the folder also gets results, summary and report.

    python -m workbench_plugins.topopt.workflow.validate [--out DIR] [--seeds 0 1] [--examples 2]
        [--photonics]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from workbench.bench.runner import PlannedCell, run_bench
from workbench.core.context import AppContext
from workbench_plugins.topopt.workflow import report, tasks
from workbench_plugins.topopt.workflow.policies import OFF_TARGET
from workbench_plugins.topopt.workflow.suite import WorkflowSuite


@dataclass(frozen=True)
class Grid:
    seeds: tuple[int, ...] = (0,)
    examples: tuple[int, ...] = (0,)
    problems: tuple[str, ...] = ("beams2d",)
    # redundant calls are checked on every targeted style unless narrowed (CI: one style)
    redundant_styles: tuple[str, ...] | None = None


# Both problems, seed 0, example 0: 10 reference cells and 12 off-target ones, about 2 minutes.
CI_GRID = Grid(problems=tasks.PROBLEMS, redundant_styles=("W-RAND",))


@dataclass
class Validation:
    folder: Path
    failures: list[str] = field(default_factory=list)
    checked: int = 0

    @property
    def passed(self) -> bool:
        return not self.failures


def plan_cells(grid: Grid) -> tuple[dict[str, WorkflowSuite], list[PlannedCell]]:
    suites = {p: WorkflowSuite(p) for p in grid.problems}
    cells = []
    for suite in suites.values():
        for task in suite.tasks():
            if int(task.payload["example"]) not in grid.examples:
                continue
            models = ["reference"]
            for name, target in OFF_TARGET.items():
                styles = target.styles
                if name == "redundant-calls" and grid.redundant_styles is not None:
                    styles = grid.redundant_styles
                if task.style in styles:
                    models.append(f"offtarget:{name}")
            cells += [PlannedCell(suite.name, task, m, s) for m in models for s in grid.seeds]
    return {suite.name: suite for suite in suites.values()}, cells


def validate(context: AppContext, out: Path, grid: Grid = CI_GRID) -> Validation:
    suites, cells = plan_cells(grid)
    outcome = run_bench(context, dict(suites), cells, out)
    report.write_report(out)
    result = Validation(out, failures=list(outcome.errors))
    records = {r["key"]: r for r in report.workflow_cells(out)}
    for cell in cells:
        record = records.get(cell.key)
        if record is None or record["status"] != "ok":
            continue  # already a failure (harness error)
        scores, result.checked = record["scores"], result.checked + 1
        if cell.model == "reference":
            if scores["task_completion"] != 1.0:
                result.failures.append(f"{cell.key}: the reference scored TC = 0")
            continue
        target = OFF_TARGET[cell.model.removeprefix("offtarget:")]
        if scores[target.checks] >= 1.0:
            result.failures.append(
                f"{cell.key}: {cell.model} ({target.about}) still scored "
                f"{target.checks} = {scores[target.checks]:.2f}"
            )
    return result


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
    )
    context = AppContext.open()
    try:
        result = validate(context, args.out, grid)
    finally:
        context.close()
    for failure in result.failures:
        print(f"FAIL {failure}", file=sys.stderr)
    verdict = "passed" if result.passed else "FAILED"
    print(f"validation {verdict}: {result.checked} cells checked; report {args.out}/report.html")
    return 0 if result.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
