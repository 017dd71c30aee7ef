"""Evaluator validation of `hpc-beams2d` on a real cluster: the reference must do all four steps
and score 1.0 everywhere (policies.REFERENCE_EXPECTED); each off-target policy must get exactly
the scores A.3 gives its mistake (policies.OFF_TARGET, computed by hand there); the two policies
that cheat (fails-every-call, claims-without-work: workbench.bench.earned) must score 0 on the
headline (hpc_score, task_completion) on every style. Runs through the bench runner, so the
folder also gets results.jsonl, summary.json and the report. Exits non-zero on failure.

    python -m workbench_plugins.hpc.bench.validate [--out DIR] [--host NAME] [--epochs 2]
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from workbench.bench.earned import CHEATS
from workbench.bench.results import read_cells
from workbench.bench.runner import PlannedCell, run_bench
from workbench.bench.validation import (
    Validation,
    check_cheat,
    compare_designed,
    finished_cells,
    in_bench_workspace,
    print_verdict,
)
from workbench.core.context import AppContext
from workbench_plugins.hpc.bench.policies import OFF_TARGET, REFERENCE_EXPECTED
from workbench_plugins.hpc.bench.suite import HpcSuite

CI_EPOCHS = 2  # a short training: the scores do not depend on how long it trained
CI_INTERVAL = 1  # seconds between checks while monitoring
CI_SAMPLES = 8  # what the short training stored: none generated again at evaluation
REFERENCE_STYLES = ("hpc-train-cgan", "hpc-train-diff")  # both algorithms train and evaluate
OFF_TARGET_STYLE = "hpc-train-cgan"


def plan_cells(suite: HpcSuite) -> list[PlannedCell]:
    """Seed 1 of the reference styles with the reference; of one style, every off-target; of
    every style, both cheats (they call nothing that runs: quick)."""
    cells = []
    for task in suite.tasks():
        if task.payload["seed"] != 1:
            continue
        cells += [PlannedCell(suite.name, task, model, 0) for model in CHEATS]
        if task.style in REFERENCE_STYLES:
            cells.append(PlannedCell(suite.name, task, "reference", 0))
        if task.style == OFF_TARGET_STYLE:
            cells += [PlannedCell(suite.name, task, f"offtarget:{name}", 0) for name in OFF_TARGET]
    return cells


def expected_scores(model: str) -> Mapping[str, float]:
    if model == "reference":
        return REFERENCE_EXPECTED
    return OFF_TARGET[model.removeprefix("offtarget:")].expected


def validate(context: AppContext, out: Path, suite: HpcSuite) -> Validation:
    cells = plan_cells(suite)
    outcome = run_bench(context, {suite.name: suite}, cells, out)
    result = Validation(out, failures=list(outcome.errors))
    records = read_cells(out.resolve())
    for cell, record in finished_cells(result, cells, records):
        if cell.model in CHEATS:
            check_cheat(result, cell, record["scores"], suite.headline)
            continue
        designed = expected_scores(cell.model)
        why = f"{cell.model} did not score as designed"
        compare_designed(result, cell.key, record["scores"], designed, why)
        details = record["details"]
        if cell.model == "reference" and (details.get("unbound") or not details["bindings"]):
            result.failures.append(
                f"{cell.key}: the reference's evaluated outputs are not bound: "
                + "; ".join(details.get("unbound", ["no evaluation recorded"]))
            )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Validate the HPC benchmark's evaluators.")
    parser.add_argument("--out", type=Path, default=Path("bench-results/hpc-validation"))
    parser.add_argument("--host", default="", help="default: the first host in the settings")
    parser.add_argument("--epochs", type=int, default=CI_EPOCHS)
    args = parser.parse_args(argv)

    def run(context: AppContext) -> Validation:
        suite = HpcSuite(
            epochs=args.epochs, host=args.host, check_interval=CI_INTERVAL, n_samples=CI_SAMPLES
        )
        return validate(context, args.out, suite)

    result = in_bench_workspace(args.out, run)
    return print_verdict(result, f" in {args.out}; report {args.out}/hpc-report.html")


if __name__ == "__main__":
    raise SystemExit(main())
