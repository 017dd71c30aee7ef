"""Evaluator validation of the `modelica` suite through the bench runner: every task in both
modes with the reference and each off-target policy, judged as any model's cell is.

Designed results: the reference passes every cell (bound: the verdict names the bytes submitted
and they are still on disk); no off-target policy passes any cell; the off-target variant of
every task is executable and fails at behaviour; a repair task's initial model submitted by the
plain loop fails at the contract's intended stage (the harness refuses to submit it: no
submission); the two policies that cheat (workbench.bench.earned) score `passed` 0 everywhere,
with no tool call that succeeded: the harness gets no submission from them, the plain loop
submits what the workspace started with. Exits non-zero when a cell does not come out as
designed.

    python -m workbench_plugins.modelica.bench.validate [--out DIR] [--backend rumoca|omc]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.bench.earned import CHEAT_ABOUT, CHEATS
from workbench.bench.results import read_cells
from workbench.bench.runner import PlannedCell, run_bench
from workbench.bench.validation import (
    Validation,
    compare_designed,
    finished_cells,
    in_bench_workspace,
    print_verdict,
)
from workbench.core.context import AppContext
from workbench_plugins.modelica.bench.policies import DIRECT
from workbench_plugins.modelica.bench.suite import ModelicaSuite

REFERENCE_EXPECTED = {"passed": 1.0, "submitted": 1.0, "executable": 1.0}
OFF_TARGET_EXPECTED = {"passed": 0.0}
NEVER_SUBMITS_EXPECTED = {"passed": 0.0, "submitted": 0.0}
POLICIES = (*DIRECT, *CHEATS)


def plan_cells(suite: ModelicaSuite, policies: tuple[str, ...] = POLICIES) -> list[PlannedCell]:
    return [
        PlannedCell(suite.name, task, policy, 0) for task in suite.tasks() for policy in policies
    ]


def designed_scores(policy: str) -> dict[str, float]:
    if policy == "reference":
        return REFERENCE_EXPECTED
    if policy == "offtarget:never-submits":
        return NEVER_SUBMITS_EXPECTED
    return OFF_TARGET_EXPECTED


def designed_stage(policy: str, record: dict[str, Any], suite: ModelicaSuite) -> str | None:
    """The failed stage a cell must end with, where the design fixes one (None: any)."""
    details = record["details"]
    task_type, mode = details["task_type"], details["mode"]
    if policy == "reference":
        return ""
    if policy == "offtarget:never-submits":
        return "no_submission"
    if policy == "offtarget:variant":
        return "behaviour"
    if policy in CHEATS and mode == "harness":
        return "no_submission"  # the harness never submits for the agent
    if policy in CHEATS and task_type == "model_generation":
        return "interface"  # the plain loop submits the workspace's empty start
    if policy in CHEATS and task_type == "model_tuning":
        return "constraints"  # the plain loop submits the untouched, empty assignment
    if task_type == "model_repair" and policy in ("offtarget:submits-initial", *CHEATS):
        if mode == "harness":
            return "no_submission"  # the public gates refuse the faulty model at submit
        stage = suite.packages[details["task_id"]].contract.intended_failure_stage
        return str(stage)
    return None


def validate(context: AppContext, out: Path, suite: ModelicaSuite) -> Validation:
    cells = plan_cells(suite)
    outcome = run_bench(context, {suite.name: suite}, cells, out)
    result = Validation(out, failures=list(outcome.errors))
    records = read_cells(out.resolve())
    for cell, record in finished_cells(result, cells, records):
        compare_designed(
            result,
            cell.key,
            record["scores"],
            designed_scores(cell.model),
            f"{cell.model} did not score as designed ({record['details']['verdict']})",
        )
        stage = designed_stage(cell.model, record, suite)
        got = record["details"]["failed_stage"]
        if stage is not None and got != stage:
            result.failures.append(
                f"{cell.key}: failed at {got or 'nothing (passed)'}, designed {stage or 'pass'}"
            )
        for line in record["details"].get("unbound", []):
            result.failures.append(f"{cell.key}: a binding of `passed` broke: {line}")
        if cell.model in CHEATS:
            check_cheat(result, cell.key, cell.model, record)
    return result


def check_cheat(result: Validation, key: str, policy: str, record: dict[str, Any]) -> None:
    """Work never done does nothing: no tool call of it succeeded (its `passed`, designed 0,
    is compared with the other designed scores)."""
    if any(call["ok"] for call in record["details"]["tool_calls"]):
        result.failures.append(f"{key}: a tool call of {policy} ({CHEAT_ABOUT[policy]}) succeeded")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Validate the modelica suite's policies.")
    parser.add_argument("--out", type=Path, default=Path("bench-results/modelica-validation"))
    parser.add_argument("--backend", default="", help="the evaluator's (default: settings')")
    parser.add_argument("--root", type=Path, default=None, help="the task set's root folder")
    args = parser.parse_args(argv)

    def run(context: AppContext) -> Validation:
        return validate(context, args.out, ModelicaSuite(root=args.root, backend=args.backend))

    result = in_bench_workspace(args.out, run)
    return print_verdict(result, f" in {args.out}")


if __name__ == "__main__":
    raise SystemExit(main())
