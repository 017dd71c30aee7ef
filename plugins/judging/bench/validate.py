"""The EngJudge pipeline's validation for CI, through the bench runner: every problem with the
reference and each off-target policy, graded by the rubric judge. The rubric is RULE-BASED, not a
model: these numbers check the pipeline's plumbing (parsing, caps, propagation, penalties,
bindings) on faults planted by the same templates its rules mark by; they measure no judge and
no generator.

Designed results (../shared/specs/engjudge.md):
- reference: S_final >= 9 on every problem;
- offtarget:wrong-equation: the Equation Selection stage capped at 3 (fatal flag "governing
  equation incorrect"), and the cap carried downstream: EngJudge's propagated score is below the
  plain mean of the same rule verdicts (the SinglePass column; with the rubric it is arithmetic
  of the two aggregations, not a finding about one-pass judges);
- offtarget:no-stages: S_final = 0 (eight missing stages cost 16 points);
- every cell: a score, no judge failure, and the grade bound to the solution file (its sha256
  bindings hold, see suite.solution_bindings).
Exits 1 when a cell does not come out as designed.

    python -m workbench_plugins.judging.bench.validate [--out DIR] [--seeds 1 2 3]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.bench.results import read_cells
from workbench.bench.runner import PlannedCell, run_bench
from workbench.bench.validation import (
    Validation,
    finished_cells,
    in_bench_workspace,
    print_verdict,
)
from workbench.core.context import AppContext
from workbench_plugins.judging.bench.policies import DIRECT, NO_STAGES, REFERENCE, WRONG_EQUATION
from workbench_plugins.judging.bench.suite import RUBRIC, EngJudgeSuite

REFERENCE_AT_LEAST = 9.0
EQUATION_CAP = 3.0
FATAL_FLAG = "governing_equation_incorrect"
RUBRIC_NOTE = (
    "judge rubric: a rule-based stand-in, not a model (no tokens); these numbers check the "
    "pipeline on planted faults, they measure no judge"
)


def plan_cells(suite: EngJudgeSuite, policies: tuple[str, ...] = DIRECT) -> list[PlannedCell]:
    return [
        PlannedCell(suite.name, task, policy, 0, judge=RUBRIC)
        for task in suite.tasks()
        for policy in policies
    ]


def check_cell(result: Validation, policy: str, key: str, record: dict[str, Any]) -> None:
    """Compare one cell with its design; each measurement and each miss is recorded."""
    scores, details = record["scores"], record["details"]
    failed: list[str] = []
    if scores.get("judge_failed") != 0.0 or scores.get("single_pass_failed") != 0.0:
        failed.append(f"a judge failure: {details.get('judge_failures')}")
    if details.get("unbound") or not details.get("bindings"):
        broken = "; ".join(details.get("unbound") or ["no binding recorded"])
        failed.append(f"the grade is not bound to the solution file: {broken}")
    final = float(scores.get("final", -1.0))
    single = float(scores.get("single_pass", -1.0))
    if policy == REFERENCE:
        result.measured.append(f"{key}: final = {final:.3f} (designed >= {REFERENCE_AT_LEAST:g})")
        if final < REFERENCE_AT_LEAST:
            failed.append(f"the reference scored {final:.3f} < {REFERENCE_AT_LEAST:g}")
    elif policy == WRONG_EQUATION:
        raw_es = float(scores.get("raw_ES", -1.0))
        flags = details["judgements"].get("ES", {}).get("fatal", [])
        result.measured.append(
            f"{key}: raw ES = {raw_es:.2f} (cap {EQUATION_CAP:g}), final = {final:.3f}, "
            f"unpropagated mean of the same rules = {single:.3f}"
        )
        if not 0.0 <= raw_es <= EQUATION_CAP or FATAL_FLAG not in flags:
            failed.append(f"ES not capped at {EQUATION_CAP:g} (raw {raw_es:.2f}, flags {flags})")
        if not single > final:
            failed.append(
                f"the ES cap was not carried downstream: EngJudge {final:.3f} is not below "
                f"the unpropagated mean {single:.3f}"
            )
    elif policy == NO_STAGES:
        result.measured.append(f"{key}: final = {final:.3f} (designed 0)")
        if final != 0.0:
            failed.append(f"an answer without stages scored {final:.3f}, designed 0")
    result.failures += [f"{key}: {reason}" for reason in failed]


def validate(context: AppContext, out: Path, suite: EngJudgeSuite) -> Validation:
    cells = plan_cells(suite)
    outcome = run_bench(context, {suite.name: suite}, cells, out)
    result = Validation(out, failures=list(outcome.errors))
    records = read_cells(out.resolve())
    for cell, record in finished_cells(result, cells, records):
        check_cell(result, cell.model, cell.key, record)
    missing = [cell.key for cell in cells if cell.key not in records]
    result.failures += [f"{key}: no record" for key in missing]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Validate the EngJudge pipeline (rubric judge).")
    parser.add_argument("--out", type=Path, default=Path("bench-results/engjudge-validation"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], metavar="S")
    args = parser.parse_args(argv)

    def run(context: AppContext) -> Validation:
        return validate(context, args.out, EngJudgeSuite(tuple(args.seeds), "dag", "no"))

    result = in_bench_workspace(args.out, run)
    print(RUBRIC_NOTE)
    return print_verdict(result, f" in {args.out}")


if __name__ == "__main__":
    raise SystemExit(main())
