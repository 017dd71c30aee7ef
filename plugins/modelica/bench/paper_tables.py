"""Pufibara Table 4 (seed 003, section 6.3) from a run's cells: the harness against the plain loop.

The paper compares two harnesses under one LLM backend; here the backend is the cell's model and
the two harnesses are the suite's modes: the Pufibara harness (`harness`) and the plain loop
(`plain`, in the place of the paper's baseline). One table per model with the paper's columns
(Workflow, Harness, Passed, Tokens (M), Runtime (h)), then one table relative to the plain loop
(Backend, Workflow, Pass-rate gain, Token reduction, Runtime reduction). As in the paper, the
reductions are computed from the unrounded totals, tokens are logical tokens, the runtime is the
sum of the valid (not harness-failed) cells' wall times, and a pass rate is passed / tasks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from string import ascii_lowercase

from workbench.bench.results import CellRecord
from workbench.bench.tool_calls import is_direct

WORKFLOW_TITLES = {
    "model_repair": "Repair",
    "model_generation": "Generation",
    "model_tuning": "Tuning",
}
HARNESS_TITLES = {"harness": "Pufibara (harness)", "plain": "plain loop"}
HEAD_AB = ("Workflow", "Harness", "Passed", "Tokens (M)", "Runtime (h)")
HEAD_C = ("Backend", "Workflow", "Pass-rate gain", "Token reduction", "Runtime reduction")


@dataclass(frozen=True)
class Totals:
    """One (model, workflow, mode): tasks, passes, logical tokens and wall seconds, summed."""

    tasks: int
    passed: int
    tokens: float
    wall_s: float

    @property
    def rate(self) -> float:
        return self.passed / self.tasks if self.tasks else 0.0


def _score(cell: CellRecord, name: str) -> float:
    return float(cell.get("scores", {}).get(name, 0.0))


def totals(cells: list[CellRecord], model: str, workflow: str, mode: str) -> Totals | None:
    """The totals of one model's cells of one workflow in one mode; None when none ran."""
    mine = [
        c for c in cells if c["model"] == model and c["problem"] == workflow and c["style"] == mode
    ]
    if not mine:
        return None
    valid = [c for c in mine if c.get("status") == "ok"]
    return Totals(
        tasks=len({str(c["task"]) for c in mine}),
        passed=sum(_score(c, "passed") == 1.0 for c in valid),
        tokens=sum(_score(c, "tokens_logical") for c in valid),
        wall_s=sum(_score(c, "wall_s") for c in valid),
    )


def millions(tokens: float) -> str:
    """Tokens in millions as the paper prints them (one decimal); a small total keeps two
    significant digits (a scripted model's few thousand tokens are not 0.0)."""
    return _decimals(tokens / 1e6, 1)


def hours(seconds: float) -> str:
    """Seconds in hours, two decimals as the paper's; a short run keeps two significant digits."""
    return _decimals(seconds / 3600.0, 2)


def _decimals(value: float, usual: int) -> str:
    if value == 0 or value >= 10.0**-usual:
        return f"{value:.{usual}f}"
    return f"{value:.{1 - math.floor(math.log10(value))}f}"


def reduction(harness: float, plain: float) -> str:
    """How much less the harness used than the plain loop, in % of the plain loop's."""
    if plain <= 0:
        return "n/a (plain loop used none)"
    return f"{100.0 * (1.0 - harness / plain):.1f}%"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _head(names: tuple[str, ...], numeric_from: int) -> list[str]:
    rule = ["---" if i < numeric_from else "---:" for i in range(len(names))]
    return [_row(list(names)), _row(rule)]


def table_4ab(cells: list[CellRecord], model: str) -> list[str]:
    """Passed, tokens and runtime per workflow and harness, for one model (one backend)."""
    lines = _head(HEAD_AB, 2)
    for workflow, title in WORKFLOW_TITLES.items():
        first = True
        for mode, harness in HARNESS_TITLES.items():
            found = totals(cells, model, workflow, mode)
            if found is None:
                continue
            shown = title if first else ""
            passed = f"{found.passed}/{found.tasks}"
            lines.append(
                _row([shown, harness, passed, millions(found.tokens), hours(found.wall_s)])
            )
            first = False
    return lines


def table_4c(cells: list[CellRecord], models: list[str]) -> list[str]:
    """Per model and workflow: the harness's pass-rate gain in percentage points, and its token
    and runtime reduction relative to the plain loop (only where both modes ran)."""
    lines = _head(HEAD_C, 2)
    for model in models:
        first = True
        for workflow, title in WORKFLOW_TITLES.items():
            harness = totals(cells, model, workflow, "harness")
            plain = totals(cells, model, workflow, "plain")
            if harness is None or plain is None:
                continue
            gain = f"{100.0 * (harness.rate - plain.rate):+.1f} pp"
            lines.append(
                _row(
                    [
                        model if first else "",
                        title,
                        gain,
                        reduction(harness.tokens, plain.tokens),
                        reduction(harness.wall_s, plain.wall_s),
                    ]
                )
            )
            first = False
    return lines


def backends(models: list[str]) -> list[str]:
    """The models Table 4 compares: those that called a model; when none did, the reference
    (its table then only shows that the pipeline runs: it calls no model)."""
    return [m for m in models if not is_direct(m)] or [m for m in models if m == "reference"]


def table_4(cells: list[CellRecord], models: list[str]) -> list[str]:
    """The whole Table 4 as Markdown: (a), (b)... one per model, then the relative table."""
    models = backends(models)
    lines = [
        "## Table 4: benchmark results, the harness against the plain loop",
        "",
        "As Pufibara's Table 4, with the suite's plain loop in the place of the paper's "
        "baseline harness and each model in the place of a backend. Token use is logical "
        "tokens in millions; pass-rate gains are in percentage points (pp); token and runtime "
        "reductions are computed from the unrounded totals, relative to the plain loop. Only the "
        "models that ran are compared; the direct policies (reference, off-target) call no "
        "model and appear here only when no model ran.",
    ]
    for number, model in enumerate(models):
        lines += ["", f"### ({_letter(number)}) {model}", "", *table_4ab(cells, model)]
    lines += ["", f"### ({_letter(len(models))}) Pufibara relative to the plain loop", ""]
    lines += table_4c(cells, models)
    return lines


def _letter(number: int) -> str:
    return ascii_lowercase[number] if number < len(ascii_lowercase) else str(number + 1)
