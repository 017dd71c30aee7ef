"""Evaluator validation of rag-beams2d: every policy must score exactly as designed.

- reference, rag: 1.0 on every prompt (it searched and read every value right);
- reference, no_rag: no search tool, so 0 parameter accuracy and 0 score;
- reference, empty_rag: it searches, finds nothing, keeps the defaults: 0 parameter accuracy, the
  search weight only;
- offtarget:guess-defaults (rag): 0 (no search: the gate closes; the defaults are wrong anyway);
- offtarget:distractor (rag): the search weight only (every value is the superseded one);
- offtarget:fails-every-call and offtarget:claims-without-work (workbench.bench.earned), in every
  condition: rag_accuracy 0 (work never done earns nothing).
Every cell of the reference and the off-target policies must be bound to the designs its
optimize_design calls stored, each binding holding. Runs through the bench runner, so the
folder also gets results, summary, index.html and the report (Fig 6). Exits non-zero when a
check fails.

    python -m workbench_plugins.retrieval.bench.rag.validate [--out DIR]
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
from workbench_plugins.retrieval.bench.rag.policies import OFF_TARGET
from workbench_plugins.retrieval.bench.rag.prompts import prompt
from workbench_plugins.retrieval.bench.rag.report import REPORT_FILE
from workbench_plugins.retrieval.bench.rag.scoring import WEIGHTS
from workbench_plugins.retrieval.bench.rag.suite import NAME, RagSuite


def expected(model: str, condition: str, parameters: int) -> dict[str, float]:
    """The scores a policy is designed to get in a condition."""
    gate = WEIGHTS[parameters][1]
    if model == "reference":
        if condition == "rag":
            return {"rag_accuracy": 1.0, "param_accuracy": 1.0, "search_called": 1.0}
        called = 1.0 if condition == "empty_rag" else 0.0
        return {"rag_accuracy": gate * called, "param_accuracy": 0.0, "search_called": called}
    if model == "offtarget:guess-defaults":
        return {"rag_accuracy": 0.0, "param_accuracy": 0.0, "search_called": 0.0}
    if model == "offtarget:distractor":
        return {"rag_accuracy": gate, "param_accuracy": 0.0, "search_called": 1.0}
    if model in CHEATS:
        return {"rag_accuracy": 0.0, "param_accuracy": 0.0, "search_called": 0.0}
    raise ValueError(f"No designed scores for {model!r}.")


def plan_cells(seed: int = 0) -> list[PlannedCell]:
    """The reference and the two cheats on all 12 tasks; each off-target policy on the 4 rag
    tasks."""
    cells = []
    for task in RagSuite().tasks():
        models = ["reference", *CHEATS]
        if task.condition == "rag":
            models += [f"offtarget:{name}" for name in OFF_TARGET]
        cells += [PlannedCell(NAME, task, model, seed) for model in models]
    return cells


def validate(context: AppContext, out: Path, seed: int = 0) -> Validation:
    cells = plan_cells(seed)
    outcome = run_bench(context, {NAME: RagSuite()}, cells, out)
    result = Validation(out, failures=list(outcome.errors))
    records = read_cells(out.resolve())
    for cell, record in finished_cells(result, cells, records):
        parameters = len(prompt(cell.task.style).targets)
        designed = expected(cell.model, cell.task.condition, parameters)
        compare_designed(result, cell.key, record["scores"], designed, "not as designed")
        if cell.model in CHEATS:
            if record["scores"]["rag_accuracy"] != 0.0:  # exactly: not within a tolerance
                result.failures.append(
                    f"{cell.key}: {cell.model} ({CHEAT_ABOUT[cell.model]}) scored"
                )
            continue
        result.failures += binding_failures(cell.key, record["details"])
    return result


def binding_failures(key: str, details: dict[str, Any]) -> list[str]:
    """A policy that optimised has its score bound to the designs, every binding holding."""
    if not details.get("bindings"):
        return [f"{key}: the score is not bound to a stored design"]
    return [f"{key}: a binding broke: {line}" for line in details.get("unbound", [])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Validate the rag-beams2d evaluator.")
    parser.add_argument("--out", type=Path, default=Path("bench-results/rag-validation"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = in_bench_workspace(args.out, lambda context: validate(context, args.out, args.seed))
    return print_verdict(result, f"; report {args.out}/{REPORT_FILE}")


if __name__ == "__main__":
    raise SystemExit(main())
