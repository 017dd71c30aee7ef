"""Reports in the results folder: `scores.csv` (every sub-score of every cell) and `report.html`
(the EngiAI paper's Tables 2 and 3, Figure 5 and Appendix E: paper_tables.py; tool-call heatmaps,
CO distributions, global metrics, tokens and latency, design comparisons). Plots are matplotlib
PNGs embedded as base64: the page works offline.

    python -m workbench_plugins.topopt.bench.report RESULTS_FOLDER
"""

from __future__ import annotations

import argparse
import base64
import csv
import html
import io
import math
from collections import defaultdict
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from workbench.bench.report_page import harness_errors, write_page
from workbench.bench.results import cell_folder, read_cells
from workbench_plugins.topopt.bench import global_metrics, paper_tables, scoring, tasks

CSV_FILE = "scores.csv"
HTML_FILE = "report.html"
SAMPLE_COMPARISONS = 8
TOOLS = (
    "optimize_design",
    "simulate_design",
    "render_design",
    "convert_design_to_stl",
    "ask_human_for_clarification",
    "get_problem_details",
    "create_problem",
)
CSS = """body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;
margin:8px 0 20px}td,th{border:1px solid #bbb;padding:4px 8px;text-align:right}
th{background:#eee}td.l{text-align:left}img{max-width:100%;border:1px solid #ddd;margin:4px 0}
.err{color:#a00}tr.m td{background:#f4f4f4;font-style:italic}
caption{text-align:left;font-weight:bold;padding:4px 0}"""


def workflow_cells(folder: Path) -> list[dict[str, Any]]:
    cells = [c for c in read_cells(folder).values() if c["suite"].startswith("workflow-")]
    return sorted(cells, key=lambda c: (c["problem"], c["style"], c["model"], c["task"], c["seed"]))


def write_csv(folder: Path, cells: list[dict[str, Any]]) -> Path:
    names = sorted({name for cell in cells for name in cell.get("scores", {})})
    path = folder / CSV_FILE
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "problem", "style", "model", "seed", "example", "status", *names])
        for cell in cells:
            scores = cell.get("scores", {})
            writer.writerow(
                [
                    cell["key"],
                    cell["problem"],
                    cell["style"],
                    cell["model"],
                    cell["seed"],
                    cell.get("details", {}).get("example", ""),
                    cell["status"],
                    *[scores.get(name, "") for name in names],
                ]
            )
    return path


def _png(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    encoded = base64.b64encode(buffer.getvalue()).decode()
    return f'<img alt="plot" src="data:image/png;base64,{encoded}">'


def _mean_std(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{fmean(values):.2f} &plusmn; {pstdev(values):.2f}"


def _ok(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [cell for cell in cells if cell["status"] == "ok"]


def _short(model: str) -> str:
    return model.replace("offtarget:", "off:")


_models = paper_tables.models


def _grid(count: int, columns: int) -> tuple[int, int]:
    columns = max(1, min(columns, count))
    return (count + columns - 1) // columns, columns


def tool_heatmaps(cells: list[dict[str, Any]], problem: str) -> str:
    models = _models(cells)
    styles = tasks.styles(problem)
    rows, columns = _grid(len(models), 3)
    figure = Figure(
        figsize=(4.4 * columns, (0.32 * len(styles) + 1.6) * rows), layout="constrained"
    )
    short = ["optimize", "simulate", "render", "to_stl", "ask_human", "details", "create"]
    for index, model in enumerate(models):
        grid = np.full((len(styles), len(TOOLS)), math.nan)
        for row, style in enumerate(styles):
            group = [c for c in _ok(cells) if c["style"] == style and c["model"] == model]
            for col, tool in enumerate(TOOLS):
                counts = [
                    sum(call["tool"] == tool for call in c["details"]["calls"]) for c in group
                ]
                if counts:
                    grid[row, col] = fmean(counts)
        axes = figure.add_subplot(rows, columns, index + 1)
        axes.imshow(np.nan_to_num(grid), cmap="Blues", vmin=0, vmax=2.5)
        for (row, col), value in np.ndenumerate(grid):
            if not math.isnan(value):
                axes.text(col, row, f"{value:.1f}", ha="center", va="center", fontsize=7)
        axes.set_xticks(range(len(TOOLS)), short, fontsize=7, rotation=45)
        axes.set_yticks(range(len(styles)), styles, fontsize=7)
        axes.set_title(f"{model}: mean calls per cell", fontsize=8)
    return _png(figure)


def co_distributions(cells: list[dict[str, Any]], problem: str) -> str:
    models = _models(cells)
    styles = [s for s in tasks.styles(problem) if any(c["style"] == s for c in _ok(cells))]
    if not styles:
        return "<p>No finished cells.</p>"
    rows, columns = _grid(len(styles), 4)
    figure = Figure(figsize=(3.5 * columns, 2.8 * rows), layout="constrained")
    for index, style in enumerate(styles):
        axes = figure.add_subplot(rows, columns, index + 1)
        data, labels = [], []
        for model in models:
            values = [
                c["scores"]["combined"]
                for c in _ok(cells)
                if c["style"] == style and c["model"] == model
            ]
            if values:
                data.append(values)
                labels.append(_short(model))
        axes.boxplot(data, showmeans=True)
        axes.set_xticks(range(1, len(labels) + 1), labels, fontsize=7, rotation=60, ha="right")
        axes.set_ylim(-0.05, 1.05)
        axes.set_title(style, fontsize=9)
        axes.set_ylabel("CO", fontsize=8)
    return _png(figure)


def tokens_latency(cells: list[dict[str, Any]]) -> str:
    models = _models(cells)
    figure = Figure(figsize=(11, 3.6), layout="constrained")
    token_axes, latency_axes = figure.add_subplot(1, 2, 1), figure.add_subplot(1, 2, 2)
    x = np.arange(len(models))
    per = {m: [c for c in _ok(cells) if c["model"] == m] for m in models}
    labels = [_short(m) for m in models]
    highest = 1.0
    for offset, name in ((-0.2, "tokens_in"), (0.2, "tokens_out")):
        means = [fmean([c["scores"][name] for c in per[m]] or [0.0]) for m in models]
        highest = max(highest, *means)
        token_axes.bar(x + offset, means, width=0.4, label=name)
    token_axes.set_ylim(0, highest * 1.1)
    token_axes.set_title("tokens per cell (0 for direct policies)", fontsize=9)
    for offset, name in ((-0.2, "model_latency_s"), (0.2, "wall_s")):
        means = [fmean([c["details"]["timing"][name] for c in per[m]] or [0.0]) for m in models]
        latency_axes.bar(x + offset, means, width=0.4, label=name)
    latency_axes.set_title("seconds per cell", fontsize=9)
    for axes in (token_axes, latency_axes):
        axes.set_xticks(x, labels, fontsize=7, rotation=45, ha="right")
        axes.legend(fontsize=7)
    return _png(figure)


def comparison_sample(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cells with a design, taken in turn from each (problem, model) so every model and problem is
    shown before a second cell of any; within a group the lowest IoU first (where it went wrong)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for cell in _ok(cells):
        if cell["scores"].get("design_found") and cell["details"].get("designs_file"):
            groups[(cell["problem"], cell["model"])].append(cell)
    order = sorted(groups, key=lambda group: (group[1] != "reference", group))
    queues = [
        sorted(groups[g], key=lambda c: (c["scores"].get("iou", 0.0), c["key"])) for g in order
    ]
    picked: list[dict[str, Any]] = []
    while len(picked) < SAMPLE_COMPARISONS and any(queues):
        for queue in queues:
            if queue and len(picked) < SAMPLE_COMPARISONS:
                picked.append(queue.pop(0))
    return picked


def comparisons(folder: Path, cells: list[dict[str, Any]]) -> str:
    """agent | ground truth | difference for a sample of cells (comparison_sample)."""
    out = []
    for cell in comparison_sample(cells):
        path = cell_folder(folder, cell["key"]) / cell["details"]["designs_file"]
        if not path.is_file():
            continue
        with np.load(path) as stored:
            agent, truth = stored["agent"], stored["truth"]
        figure = Figure(figsize=(9, 2.3), layout="constrained")
        panels = (("agent", agent, "gray_r"), ("ground truth", truth, "gray_r"))
        for index, (title, image, cmap) in enumerate(panels):
            axes = figure.add_subplot(1, 3, index + 1)
            axes.imshow(image, cmap=cmap, vmin=0, vmax=1)
            axes.set_title(title, fontsize=8)
            axes.axis("off")
        axes = figure.add_subplot(1, 3, 3)
        if agent.shape == truth.shape:
            axes.imshow(agent - truth, cmap="RdBu", vmin=-1, vmax=1)
        else:  # an agent may make a design of another size: it scores 0, nothing to subtract
            axes.text(0.5, 0.5, f"shapes differ\n{agent.shape} vs {truth.shape}", ha="center")
        axes.set_title("difference", fontsize=8)
        axes.axis("off")
        caption = (
            f"{cell['problem']} {cell['style']} {cell['model']} seed {cell['seed']} "
            f"(IoU {cell['scores']['iou']:.3f}, CO {cell['scores']['combined']:.3f})"
        )
        out.append(f"<p>{html.escape(caption)}</p>{_png(figure)}")
    return "".join(out) or "<p>No cell produced a design.</p>"


def overhead(cells: list[dict[str, Any]]) -> dict[str, float]:
    """Wall time of the policy-played cells (runner-measured) against the EngiBench time inside
    them (ground truths included when they were computed in this run)."""
    direct = [c for c in _ok(cells) if c["model"] == "reference"]
    wall = sum(c["duration_s"] for c in direct)
    engibench = sum(c["details"]["timing"]["engibench_s"] for c in direct)
    return {
        "cells": float(len(direct)),
        "wall_s": wall,
        "engibench_s": engibench,
        "ratio": wall / engibench if engibench else math.nan,
    }


def _global_row(values: list[Any], summary: bool = False) -> str:
    """model and style left-aligned (escaped), the rest as given; a summary row is shaded."""
    cells = [f'<td class="l">{html.escape(str(v))}</td>' for v in values[:2]]
    cells += [f"<td>{v}</td>" for v in values[2:]]
    shade = ' class="m"' if summary else ""
    return f"<tr{shade}>{''.join(cells)}</tr>"


def global_tables(result: dict[str, Any]) -> str:
    """Per problem: the global metrics of every (model, style, seed), each (model, style) followed
    by its mean &plusmn; std over seeds (population std, as the tables above)."""
    intro = (
        "<p>Over the designs found (status ok, the ground truth's shape), per seed; every number "
        f"in <a href='{global_metrics.GLOBAL_FILE}'>{global_metrics.GLOBAL_FILE}</a>. MMD and "
        f"DPP: Gaussian kernel, &sigma; = {global_metrics.SIGMA:g}, on flattened designs; MMD "
        "against the problem's distinct ground truths in this folder (no dataset); DPP = "
        "det(K + 10<sup>-6</sup> I). IOG/COG/FOG: first, summed and last optimality gap, "
        "averaged over the designs with an optimisation history (Photonics2D's history is "
        "EngiBench's internal objective, overlap &minus; penalty at the current projection "
        "sharpness, so its gaps are offset from the simulated total_overlap, as in the "
        "reference). RVC: fraction with "
        "|mean &minus; volfrac| &ge; 0.01 (Beams2D only).</p>"
    )
    names = global_metrics.METRICS
    columns = ("model", "style", "seed", "n designs", *(name.upper() for name in names))
    head = "".join(f"<th>{column}</th>" for column in columns)
    out = []
    for problem in sorted({group["problem"] for group in result["groups"]}):
        styles = tasks.styles(problem)
        settings = sorted(
            (s for s in result["summary"] if s["problem"] == problem),
            key=lambda s: (
                s["model"] != "reference",
                s["model"],
                styles.index(s["style"]) if s["style"] in styles else len(styles),
                s["style"],
            ),
        )
        rows = []
        for setting in settings:
            label = [setting["model"], setting["style"]]
            for group in result["groups"]:
                if (group["problem"], group["model"], group["style"]) == (problem, *label):
                    metrics = group["metrics"]
                    numbers = [f"{metrics[n]:.4g}" if n in metrics else "-" for n in names]
                    rows.append(_global_row([*label, group["seed"], group["n_designs"], *numbers]))
            mean, std = setting["mean"], setting["std"]
            numbers = [f"{mean[n]:.4g} &plusmn; {std[n]:.2g}" if n in mean else "-" for n in names]
            count = len(setting["seeds"])
            seeds = f"mean &plusmn; std ({count} seed{'s' * (count != 1)})"
            rows.append(_global_row([*label, seeds, setting["n_designs"], *numbers], True))
        truths = result["reference_designs"].get(problem, 0)
        out.append(
            f"<h3>{problem}: MMD reference set = {truths} distinct ground truth(s)</h3>"
            f"<table><tr>{head}</tr>{''.join(rows)}</table>"
        )
    return intro + ("".join(out) or "<p>No cell produced a design.</p>")


def _weighted(weights: dict[str, float]) -> str:
    return " + ".join(f"{weight:g} {name}" for name, weight in weights.items())


def scoring_note(cells: list[dict[str, Any]]) -> str:
    """How a cell is scored, how the weights of an unmeasured term are renormalised, and how
    many cells lost their headline to a broken binding."""
    photonics = {k: w for k, w in scoring.DQ_WEIGHTS.items() if k != "constraint"}
    no_stl = {k: w for k, w in scoring.DQ_WEIGHTS.items() if k != "watertight"}
    unbound = [c for c in _ok(cells) if c.get("details", {}).get("unbound")]
    return (
        f"<p>Scoring: DQ = {_weighted(scoring.DQ_WEIGHTS)}; CO = "
        f"{_weighted(scoring.CO_WEIGHTS)}. Only tool calls that succeeded count: a failed call "
        "never matches an optimal one (it still counts among the calls made), and every render, "
        "simulation and export counts only for the scored design (the last successful "
        "optimisation's, by design_sha256). A DQ term with nothing to measure is not awarded: it "
        "is left out (not recorded) and the remaining weights are renormalised to sum to 1. "
        f"Photonics2D has no constraint: DQ = ({_weighted(photonics)}) / "
        f"{sum(photonics.values()):g}. FULL and NATURAL ask for no STL: DQ = "
        f"({_weighted(no_stl)}) / {sum(no_stl.values()):g}. An abstaining NATURAL cell has "
        "DQ = 1. The watertight term re-checks the scored design's STL file, bound to the sha256 "
        "its export recorded; a file gone or changed since zeroes CO and TC "
        f"({len(unbound)} cell(s) here).</p>"
    )


def preset_note(cells: list[dict[str, Any]]) -> str:
    """Which optimiser settings the cells ran with (`bench --preset`), per preset."""
    counts: dict[str, int] = defaultdict(int)
    for cell in cells:
        counts[tasks.preset_name(cell.get("preset", ""))] += 1
    ran = ", ".join(f"{name} ({count} cells)" for name, count in sorted(counts.items()))
    return (
        f"<p>Preset: <b>{html.escape(ran or '-')}</b>. fast (the default): Photonics2D tasks and "
        f"ground truths use {tasks.PRESET_STEPS['']} Adam steps; paper (<code>bench --preset "
        f"paper</code>): EngiBench's default, {tasks.PRESET_STEPS[tasks.PAPER]} steps, as the "
        "EngiAI paper ran. Beams2D runs EngiBench's defaults in both.</p>"
    )


def write_report(folder: Path) -> Path:
    cells = workflow_cells(folder)
    write_csv(folder, cells)
    metrics = global_metrics.write_global_metrics(folder, cells)
    by_problem: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for cell in cells:
        by_problem[cell["problem"]].append(cell)
    sources = sorted(
        {
            c["details"]["ground_truth"]["source"]
            for c in _ok(cells)
            if c["details"].get("ground_truth")
        }
    )
    parts = [
        f"<h1>Workflow benchmark</h1><p>{len(cells)} cells in {html.escape(str(folder))}; "
        f"every sub-score in <a href='{CSV_FILE}'>{CSV_FILE}</a>.</p>",
        f"<p>Ground truth: {html.escape('; '.join(sources) or '-')}.</p>",
        preset_note(cells),
        scoring_note(cells),
    ]
    parts.append(harness_errors(cells))
    for problem, group in sorted(by_problem.items()):
        parts += [
            f"<h2>{problem}: task completion and combined score (mean &plusmn; std)</h2>",
            paper_tables.tc_co_table(cells, problem),
            f"<h3>{problem}: tool calls</h3>",
            tool_heatmaps(group, problem),
            f"<h3>{problem}: tool count against CO and DQ</h3>",
            paper_tables.tool_count_figure(group, problem, _png),
            f"<h3>{problem}: combined score distributions</h3>",
            co_distributions(group, problem),
            f"<h3>{problem}: raw sub-scores</h3>",
            paper_tables.raw_scores_table(group, problem),
        ]
    if cells:
        parts += ["<h2>Global metrics per seed</h2>", global_tables(metrics)]
    cost = overhead(cells)
    if cost["cells"]:
        parts.append(
            f"<p>Overhead of the reference cells: {cost['wall_s']:.1f} s wall / "
            f"{cost['engibench_s']:.1f} s inside EngiBench = <b>{cost['ratio']:.2f}</b> "
            f"({int(cost['cells'])} cells).</p>"
        )
    if cells:
        parts += ["<h2>Tokens and latency per model</h2>", tokens_latency(cells)]
        parts += ["<h2>Design comparisons</h2>", comparisons(folder, cells)]
    return write_page(folder / HTML_FILE, "Workflow benchmark", CSS, parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a bench --out folder")
    args = parser.parse_args(argv)
    print(write_report(args.folder))
    cost = overhead(workflow_cells(args.folder))
    if cost["cells"]:
        print(
            f"overhead (reference cells): {cost['wall_s']:.1f} s wall / "
            f"{cost['engibench_s']:.1f} s EngiBench "
            f"= {cost['ratio']:.3f} over {int(cost['cells'])} cells"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
