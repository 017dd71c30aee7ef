"""The rag-beams2d report, as EngiAI Fig 6 plots it: the weighted contributions to the RAG score
(the search indicator and each parameter's gated accuracy) per prompt and model, one figure per
condition (RAG-on, RAG-off, Empty RAG), with the numbers behind them and the mean score per model
and condition (RAG-on's uplift over the other two). The paper omits RAG-off (always 0 under the
gate); it is drawn here, so a run where it is not 0 shows.

Writes rag-beams2d.html and one PNG per condition (rag-beams2d-fig6-<condition>.png) into the
results folder; the bench run links the page from index.html.

    python -m workbench_plugins.retrieval.bench.rag.report RESULTS_FOLDER
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from pathlib import Path
from statistics import fmean, pstdev

from matplotlib.figure import Figure

from workbench.bench.report_command import rewrite_report
from workbench.bench.report_page import html_table, write_page
from workbench.bench.results import CellRecord
from workbench_plugins.retrieval.bench.rag.prompts import CONDITION_ABOUT, CONDITIONS, PROMPTS
from workbench_plugins.retrieval.bench.rag.scoring import WEIGHTS, contributions

SUITE = "rag-beams2d"
REPORT_FILE = "rag-beams2d.html"
LABELS = {"rag": "RAG-on", "no_rag": "RAG-off", "empty_rag": "Empty RAG"}
PARTS = ("search", "volfrac", "forcedist", "rmin")
PART_LABELS = {
    "search": "search_documents called",
    "volfrac": "volfrac",
    "forcedist": "forcedist",
    "rmin": "rmin",
}
# plain colours, so a test can find each part's bars in a screenshot of the page
COLOURS = {"search": "#4c72b0", "volfrac": "#dd8452", "forcedist": "#55a868", "rmin": "#c44e52"}
PARAMETERS = {item.id: list(item.targets) for item in PROMPTS}
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1150px; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.4em; }
th, td { border: 1px solid #ccc; padding: 3px 9px; text-align: left; }
th { background: #f2f2f2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
h2 { margin-top: 1.6em; border-bottom: 2px solid #ddd; } .note { color: #555; }
img { max-width: 100%; border: 1px solid #eee; }
"""


def figure_file(condition: str) -> str:
    return f"rag-beams2d-fig6-{condition}.png"


def scored(cells: Iterable[CellRecord]) -> list[CellRecord]:
    """The suite's cells that ran to a score (a harness error is listed, never averaged)."""
    return [
        c for c in cells if c.get("suite", SUITE) == SUITE and c["status"] == "ok" and c["scores"]
    ]


def models_of(cells: list[CellRecord]) -> list[str]:
    """The reference first, then the agents, then the off-target policies."""
    return sorted(
        {str(c["model"]) for c in cells},
        key=lambda m: (m != "reference", m.startswith("offtarget:"), m),
    )


def _group(cells: list[CellRecord], condition: str, prompt: str, model: str) -> list[CellRecord]:
    return [
        c
        for c in cells
        if c["condition"] == condition and c["style"] == prompt and c["model"] == model
    ]


def mean_parts(group: list[CellRecord], prompt: str) -> dict[str, float]:
    """Each part's contribution, averaged over the group's runs (they sum to the mean score)."""
    parts = [contributions(c["scores"], PARAMETERS[prompt]) for c in group]
    return {name: fmean(p[name] for p in parts) for name in parts[0]} if parts else {}


def _mean_std(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{fmean(values):.2f} &plusmn; {pstdev(values):.2f}"


def _short(model: str) -> str:
    return model.replace("offtarget:", "off:")


# -- figures ---------------------------------------------------------------------------------
def fig6(cells: list[CellRecord], condition: str) -> Figure:
    """One panel per prompt; a stacked bar per model that ran in the condition: the weighted
    parts of its mean score."""
    models = models_of([c for c in cells if c["condition"] == condition])
    figure = Figure(figsize=(12, 5.2), layout="constrained")
    axes = figure.subplots(1, len(PROMPTS), sharey=True)
    for axis, item in zip(axes, PROMPTS, strict=True):
        bottoms = [0.0] * len(models)
        for part in PARTS:
            heights = [
                mean_parts(_group(cells, condition, item.id, m), item.id).get(part, 0.0)
                for m in models
            ]
            if part != "search" and part not in PARAMETERS[item.id]:
                continue
            axis.bar(
                range(len(models)),
                heights,
                bottom=bottoms,
                color=COLOURS[part],
                label=PART_LABELS[part],
                width=0.7,
            )
            bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
        axis.axhline(1.0, color="#999", linewidth=0.8, linestyle="--")
        axis.set_title(f"{item.id} ({len(item.targets)} parameter{'s' * (len(item.targets) > 1)})")
        labels = [_short(m) for m in models]
        axis.set_xticks(range(len(models)), labels, rotation=55, ha="right", fontsize=8)
        axis.set_ylim(0, 1.08)
    axes[0].set_ylabel("weighted RAG score contribution")
    handles = {
        label: handle
        for axis in axes
        for handle, label in zip(*axis.get_legend_handles_labels(), strict=True)
    }
    figure.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=len(PARTS))
    figure.suptitle(f"{LABELS[condition]}: {CONDITION_ABOUT[condition]}")
    return figure


# -- tables ----------------------------------------------------------------------------------
def _table(table_id: str, header: list[str], rows: list[list[str]], first_numeric: int) -> str:
    return html_table(header, rows, range(first_numeric, len(header)), table_id)


def weights_table() -> str:
    """EngiAI Table 4: the weights per prompt."""
    rows = []
    for item in PROMPTS:
        each, gate = WEIGHTS[len(item.targets)]
        targets = ", ".join(f"{p} {v:g}" for p, v in item.targets.items())
        rows.append([item.id, html.escape(targets), f"{each:g}", f"{gate:g}"])
    header = ["Prompt", "Parameters (target)", "w per parameter", "w_RAG"]
    return _table("weights", header, rows, 2)


def contributions_table(cells: list[CellRecord]) -> str:
    """The numbers Fig 6 draws: each part's mean contribution and the score, per condition,
    prompt and model."""
    rows = []
    for condition in CONDITIONS:
        for item in PROMPTS:
            for model in models_of(cells):
                group = _group(cells, condition, item.id, model)
                if not group:
                    continue
                parts = mean_parts(group, item.id)
                rows.append(
                    [
                        LABELS[condition],
                        item.id,
                        html.escape(model),
                        str(len(group)),
                        *(f"{parts[p]:.2f}" if p in parts else "-" for p in PARTS),
                        _mean_std([c["scores"]["rag_accuracy"] for c in group]),
                    ]
                )
    header = ["Condition", "Prompt", "Model", "Runs", *PART_LABELS.values(), "RAG score"]
    return _table("contributions", header, rows, 3)


def conditions_table(cells: list[CellRecord]) -> str:
    """The mean score per model and condition over its prompts, and RAG-on's uplift."""
    rows = []
    for model in models_of(cells):
        means: dict[str, float] = {}
        for condition in CONDITIONS:
            values = [
                c["scores"]["rag_accuracy"]
                for c in cells
                if c["model"] == model and c["condition"] == condition
            ]
            if values:
                means[condition] = fmean(values)
        shown = [f"{means[c]:.2f}" if c in means else "-" for c in CONDITIONS]
        uplift = [
            f"{means['rag'] - means[other]:+.2f}" if "rag" in means and other in means else "-"
            for other in ("no_rag", "empty_rag")
        ]
        rows.append([html.escape(model), *shown, *uplift])
    header = [
        "Model",
        *(LABELS[c] for c in CONDITIONS),
        "RAG-on minus RAG-off",
        "RAG-on minus Empty RAG",
    ]
    return _table("conditions", header, rows, 1)


def errors_note(cells: list[CellRecord]) -> str:
    failed = [c for c in cells if c.get("suite", SUITE) == SUITE and c["status"] != "ok"]
    if not failed:
        return "<p class='note'>Every cell ran to a score.</p>"
    items = "".join(
        f"<li>{html.escape(str(c['key']))}: {html.escape(str(c.get('error', '')))}</li>"
        for c in failed
    )
    return f"<p>Cells left out (harness errors, not scores):</p><ul id='errors'>{items}</ul>"


# -- the page --------------------------------------------------------------------------------
def write_report(folder: Path, cells: list[CellRecord]) -> Path:
    ok = scored(cells)
    figures = []
    for condition in CONDITIONS:
        if not any(c["condition"] == condition for c in ok):
            continue
        name = figure_file(condition)
        fig6(ok, condition).savefig(folder / name, dpi=90)
        alt = f"Fig 6, {LABELS[condition]}: weighted RAG score contributions per prompt and model"
        figures.append(
            f'<figure id="fig6-{condition}"><img src="{name}" alt="{html.escape(alt)}">'
            f"<figcaption>{html.escape(alt)}; mean over runs "
            f'(<a href="{name}">{name}</a>).</figcaption></figure>'
        )
    parts = [
        "<h1>rag-beams2d: RAG benchmark (EngiAI Fig 6)</h1>",
        "<p class='note'>Gated scoring (EngiAI A.2): a parameter's accuracy counts only when a "
        "search_documents call succeeded before the optimize_design call it was read from; "
        "only calls that succeeded are read, and each score is bound to the design its "
        "optimisation stored (a broken binding scores 0). Every cell is in results.jsonl.</p>",
        f"<h2>Scoring weights (Table 4)</h2>{weights_table()}",
        "<h2>Fig 6: weighted RAG score contributions by prompt and model</h2>",
        "".join(figures) or "<p>No cell ran to a score.</p>",
        "<h2>Contributions per condition, prompt and model</h2>",
        contributions_table(ok),
        "<h2>Mean score per model and condition</h2>",
        conditions_table(ok),
        errors_note(cells),
    ]
    return write_page(folder / REPORT_FILE, "rag-beams2d", STYLE, parts)


def main(argv: list[str] | None = None) -> int:
    return rewrite_report(SUITE, write_report, argv)


if __name__ == "__main__":
    raise SystemExit(main())
