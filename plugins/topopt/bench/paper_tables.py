"""The EngiAI paper's tables and figures from a results folder, with the paper's row and column
names, for report.html:

- Table 2 (Beams2D) and Table 3 (Photonics2D): TC and CO, mean &plusmn; std per style and model,
  with an Average row (the mean of the style means, as the paper's); Table 3 adds the Beams2D
  rows of the same styles for comparison (when the folder has Beams2D cells).
- Figure 5: tool count against CO (solid) and DQ (dashed) for the W-Rand style.
- Appendix E: the raw sub-scores, mean per model and style (a dash where a term had nothing to
  measure and was left out, see scoring.unmeasured_terms).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from statistics import fmean, pstdev
from typing import Any

from matplotlib.figure import Figure

from workbench_plugins.topopt.bench import tasks

Cell = dict[str, Any]
STYLE_LABELS = {
    "FULL": "Full",
    "NATURAL": "Natural",
    "W-RAND": "W-Rand",
    "W-DERIVED": "W-Derived",
    "W-DISTRACT": "W-Distract",
    "W-COND": "W-Cond",
    "W-MULTI": "W-Multi",
}
PROBLEM_LABELS = {"beams2d": "Beams2D", "photonics2d": "Photonics2D"}
TABLE_NUMBER = {"beams2d": 2, "photonics2d": 3}
# Appendix E: the paper's names of the sub-scores (A.1), then the composites
RAW_COLUMNS = (
    ("IoU", "iou"),
    ("PA", "pixel_accuracy"),
    ("Obj", "objective"),
    ("Constr", "constraint"),
    ("Conn", "connectivity"),
    ("WT", "watertight"),
    ("DQ", "design_quality"),
    ("Tool", "tool_use"),
    ("TC", "task_completion"),
    ("CO", "combined"),
    ("Calls", "tool_calls"),
)
FIG5_STYLE = "W-RAND"


def _ok(cells: list[Cell]) -> list[Cell]:
    return [cell for cell in cells if cell["status"] == "ok"]


def models(cells: list[Cell]) -> list[str]:
    """Reference first, then the rest by name."""
    return sorted({c["model"] for c in cells}, key=lambda m: (m != "reference", m))


def _values(cells: list[Cell], model: str, style: str, score: str) -> list[float]:
    return [
        float(c["scores"][score])
        for c in _ok(cells)
        if c["model"] == model and c["style"] == style and score in c["scores"]
    ]


def _mean_std(values: list[float]) -> str:
    return f"{fmean(values):.2f}&plusmn;{pstdev(values):.2f}" if values else "&ndash;"


def _style_rows(cells: list[Cell], styles: tuple[str, ...], names: list[str]) -> list[str]:
    """A row per style (TC, CO mean &plusmn; std per model) and the Average row: per model, the
    mean over the styles of their means, as the paper's."""
    rows = []
    means: dict[tuple[str, str], list[float]] = {}
    for style in styles:
        row = [f'<td class="l">{STYLE_LABELS[style]}</td>']
        for model in names:
            for score in ("task_completion", "combined"):
                values = _values(cells, model, style, score)
                row.append(f"<td>{_mean_std(values)}</td>")
                if values:
                    means.setdefault((model, score), []).append(fmean(values))
        rows.append("<tr>" + "".join(row) + "</tr>")
    average = ['<td class="l">Average</td>']
    for model in names:
        for score in ("task_completion", "combined"):
            found = means.get((model, score))
            average.append(f"<td>{fmean(found):.2f}</td>" if found else "<td>&ndash;</td>")
    rows.append('<tr class="m">' + "".join(average) + "</tr>")
    return rows


def tc_co_table(cells: list[Cell], problem: str) -> str:
    """The paper's Table 2 (Beams2D) or 3 (Photonics2D): Style x (model: TC &uarr;, CO &uarr;),
    an Average row; Photonics2D's with the Beams2D rows of its styles for comparison."""
    own = [c for c in cells if c["problem"] == problem]
    names = models(own)
    styles = tasks.styles(problem)
    head = "".join(f'<th colspan="2">{html.escape(model)}</th>' for model in names)
    sub = "<th>TC &uarr;</th><th>CO &uarr;</th>" * len(names)
    rows = _style_rows(own, styles, names)
    beams = [c for c in cells if c["problem"] == "beams2d"]
    if problem == "photonics2d" and beams:
        span = 1 + 2 * len(names)
        rows.append(
            f'<tr><td class="l" colspan="{span}"><i>Beams 2D (same styles, for comparison)'
            "</i></td></tr>"
        )
        rows += _style_rows(beams, styles, names)
    caption = (
        f"Table {TABLE_NUMBER[problem]}: Workflow evaluation results for "
        f"{PROBLEM_LABELS[problem]} (mean &plusmn; std). TC = Task Completion rate, CO = "
        "Combined Overall score."
    )
    return (
        f"<table><caption>{caption}</caption><tr><th></th>{head}</tr><tr><th>Style</th>{sub}</tr>"
        f"{''.join(rows)}</table>"
    )


def raw_scores_table(cells: list[Cell], problem: str) -> str:
    """Appendix E: every sub-score, mean over the cells of each model and style."""
    own = _ok([c for c in cells if c["problem"] == problem])
    head = "".join(f"<th>{name}</th>" for name, _ in RAW_COLUMNS)
    rows = []
    for model in models(own):
        for style in tasks.styles(problem):
            group = [c for c in own if c["model"] == model and c["style"] == style]
            if not group:
                continue
            numbers = []
            for _, score in RAW_COLUMNS:
                values = [float(c["scores"][score]) for c in group if score in c["scores"]]
                numbers.append(f"<td>{fmean(values):.2f}</td>" if values else "<td>&ndash;</td>")
            label = f'<td class="l">{html.escape(model)}</td><td class="l">{STYLE_LABELS[style]}'
            rows.append(f"<tr>{label}</td><td>{len(group)}</td>{''.join(numbers)}</tr>")
    caption = (
        f"Appendix E: raw sub-scores for {PROBLEM_LABELS[problem]}, mean per model and style "
        "(&ndash;: nothing to measure, left out of DQ)."
    )
    return (
        f"<table><caption>{caption}</caption><tr><th>Model</th><th>Style</th><th>n</th>{head}"
        f"</tr>{''.join(rows)}</table>"
    )


def tool_count_figure(cells: list[Cell], problem: str, png: Callable[[Figure], str]) -> str:
    """Figure 5: per model, the mean CO (solid) and DQ (dashed) of the W-Rand cells at each
    tool-call count."""
    group = [
        c
        for c in _ok(cells)
        if c["problem"] == problem and c["style"] == FIG5_STYLE and "tool_calls" in c["scores"]
    ]
    if not group:
        return "<p>No W-Rand cell: no Figure 5.</p>"
    figure = Figure(figsize=(6.5, 3.4), layout="constrained")
    axes = figure.add_subplot(1, 1, 1)
    for index, model in enumerate(models(group)):
        mine = [c for c in group if c["model"] == model]
        counts = sorted({int(c["scores"]["tool_calls"]) for c in mine})
        colour = f"C{index % 10}"
        for score, line in (("combined", "-"), ("design_quality", "--")):
            means = [
                fmean(c["scores"][score] for c in mine if int(c["scores"]["tool_calls"]) == n)
                for n in counts
            ]
            label = f"{model} {'CO' if score == 'combined' else 'DQ'}"
            axes.plot(counts, means, line, color=colour, marker="o", label=label)
    axes.set_xlabel("Tool Calls")
    axes.set_ylabel("Score")
    axes.set_ylim(-0.05, 1.05)
    title = f"Figure 5: Tool count vs. performance for the W-Rand style ({PROBLEM_LABELS[problem]})"
    axes.set_title(title, fontsize=9)
    axes.legend(fontsize=7)
    caption = "CO: solid line; DQ: dashed; mean over the cells with each number of tool calls."
    return f"<p><b>{title}</b>. {caption}</p>{png(figure)}"
