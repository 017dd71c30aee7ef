"""One line per (suite, model, judge) of a run: cells, harness errors, the suite's headline scores
and its report; what the terminal prints after a run and what `index.html` opens with (the full
means stay in summary.json)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

from workbench.bench.results import CellRecord
from workbench.bench.suite import RULES_KIND, Suite

MAX_UNNAMED_HEADLINE = 3  # a suite naming no headline shows this many of its scores


@dataclass(frozen=True)
class SuiteLine:
    suite: str
    model: str
    judge: str
    cells: int
    errors: int
    headline: dict[str, float]  # mean over the cells that ran to a score
    report: Path | None


def headline_names(suite: Suite | None, cells: list[CellRecord]) -> tuple[str, ...]:
    """The suite's own headline scores, else the first few it recorded (by name)."""
    if suite is not None and suite.headline:
        return suite.headline
    names = sorted({name for cell in cells for name in cell.get("scores", {})})
    return tuple(names[:MAX_UNNAMED_HEADLINE])


def suite_lines(
    finished: list[CellRecord], suites: dict[str, Suite], reports: dict[str, Path]
) -> list[SuiteLine]:
    groups: dict[tuple[str, str, str], list[CellRecord]] = defaultdict(list)
    for cell in finished:
        groups[(cell["suite"], cell["model"], cell.get("judge", ""))].append(cell)
    lines = []
    for (suite, model, judge), cells in sorted(groups.items()):
        scored = [cell for cell in cells if cell["status"] == "ok"]
        headline = {}
        for name in headline_names(suites.get(suite), scored):
            values = [
                float(cell["scores"][name]) for cell in scored if name in cell.get("scores", {})
            ]
            if values:
                headline[name] = fmean(values)
        errors = len(cells) - len(scored)
        shown_judge = judge_label(judge, cells)
        lines.append(
            SuiteLine(suite, model, shown_judge, len(cells), errors, headline, reports.get(suite))
        )
    return lines


def judge_label(judge: str, cells: list[CellRecord]) -> str:
    """The judge's name, saying so when it is rules and not a model (its numbers measure the
    pipeline, not a judge)."""
    kinds = {(cell.get("judge_settings") or {}).get("kind") for cell in cells}
    return f"{judge} (rule-based, no model)" if judge and RULES_KIND in kinds else judge


def format_scores(headline: dict[str, float]) -> str:
    return "  ".join(f"{name} {value:.3g}" for name, value in headline.items()) or "-"
