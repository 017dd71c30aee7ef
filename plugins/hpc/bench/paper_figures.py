"""The EngiAI paper's HPC figures from a results folder's cells, as tables and PNG files:

- Figure 7: average step completion rates (Generate, Submit, Monitor, Evaluate) per model,
  (a) Explicit and (b) Natural prompts; the paper shows cGAN, the diffusion runs get the same.
- Figures 8 (cGAN) and 9 (diffusion): the offline model quality metrics of the agent-trained
  models, averaged over the cells that evaluated one, beside the baselines computed here
  (baselines.py), with the arrows of the desired direction. The tables add IOG and FOG.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from workbench_plugins.hpc.bench import baselines
from workbench_plugins.hpc.bench.prompts import STYLE_ALGORITHM

Cell = dict[str, Any]
ALGORITHM_LABELS = {"cgan_cnn_2d": "cGAN", "diffusion_2d_cond": "diffusion"}
STEP_COLUMNS = (
    ("Generate", "step_generate_training_command"),
    ("Submit", "step_submit_slurm_job"),
    ("Monitor", "step_monitor_job_until_complete"),
    ("Evaluate", "step_evaluate_model"),
)
PROMPT_STYLES = ("Explicit", "Natural")
# the paper's metric names, the result key, and whether lower is better
METRIC_COLUMNS = (
    ("IOG", "iog", True),
    ("COG", "cog", True),
    ("FOG", "fog", True),
    ("MMD", "mmd", True),
    ("DPP", "dpp", False),
    ("RVC", "viol", True),
)
FIGURE_METRICS = ("COG", "RVC", "MMD", "DPP")  # the four panels of Figures 8 and 9
FIGURE_NUMBER = {"cgan_cnn_2d": 8, "diffusion_2d_cond": 9}


def _ok(cells: list[Cell]) -> list[Cell]:
    return [cell for cell in cells if cell["status"] == "ok"]


def models(cells: list[Cell]) -> list[str]:
    """Reference first, then the rest by name."""
    return sorted({c["model"] for c in cells}, key=lambda m: (m != "reference", m))


def prompt_style(style: str) -> str:
    return "Natural" if "natural" in style else "Explicit"


def arrow(lower_is_better: bool) -> str:
    return "&darr;" if lower_is_better else "&uarr;"


# -- Figure 7 -------------------------------------------------------------------------------------
def step_rates(cells: list[Cell], algorithm: str) -> dict[tuple[str, str], list[float]]:
    """(model, prompt style) -> the mean completion of each step, over its cells."""
    rates: dict[tuple[str, str], list[float]] = {}
    for model in models(cells):
        for prompt in PROMPT_STYLES:
            group = [
                c
                for c in _ok(cells)
                if c["model"] == model
                and STYLE_ALGORITHM.get(c["style"]) == algorithm
                and prompt_style(c["style"]) == prompt
            ]
            if group:
                rates[(model, prompt)] = [
                    fmean(float(c["scores"][key]) for c in group) for _, key in STEP_COLUMNS
                ]
    return rates


def step_table(cells: list[Cell], algorithm: str) -> str:
    rates = step_rates(cells, algorithm)
    head = "".join(f"<th>{name}</th>" for name, _ in STEP_COLUMNS)
    rows = []
    for (model, prompt), values in rates.items():
        count = sum(
            1
            for c in _ok(cells)
            if c["model"] == model
            and STYLE_ALGORITHM.get(c["style"]) == algorithm
            and prompt_style(c["style"]) == prompt
        )
        numbers = "".join(f"<td>{value:.2f}</td>" for value in values)
        rows.append(
            f'<tr><td class="l">{prompt}</td><td class="l">{html.escape(model)}</td>'
            f"<td>{count}</td>{numbers}</tr>"
        )
    caption = (
        f"Figure 7 ({ALGORITHM_LABELS[algorithm]}): Average step completion rates, the mean "
        "fraction of runs completing each step (a step counts only when its call succeeded)."
    )
    return (
        f"<table><caption>{caption}</caption><tr><th>Prompt</th><th>Model</th><th>n</th>{head}"
        f"</tr>{''.join(rows)}</table>"
    )


def step_figure(cells: list[Cell], algorithm: str, path: Path) -> Path:
    """Figure 7's heatmaps: (a) Explicit, (b) Natural; rows models, columns steps."""
    rates = step_rates(cells, algorithm)
    names = models(cells)
    figure = Figure(figsize=(10, 1.6 + 0.45 * len(names)), layout="constrained")
    for index, prompt in enumerate(PROMPT_STYLES):
        axes = figure.add_subplot(1, 2, index + 1)
        grid = np.array([rates.get((m, prompt), [math.nan] * len(STEP_COLUMNS)) for m in names])
        axes.imshow(np.nan_to_num(grid, nan=0.0), cmap="Greens", vmin=0, vmax=1, aspect="auto")
        for (row, col), value in np.ndenumerate(grid):
            shown = "-" if math.isnan(value) else f"{value:.2f}"
            ink = "white" if not math.isnan(value) and value > 0.6 else "black"
            axes.text(col, row, shown, ha="center", va="center", fontsize=8, color=ink)
        axes.set_xticks(range(len(STEP_COLUMNS)), [name for name, _ in STEP_COLUMNS], fontsize=8)
        axes.set_yticks(range(len(names)), names, fontsize=8)
        axes.set_title(f"({'ab'[index]}) {prompt}", fontsize=9)
    figure.suptitle(
        f"Figure 7: Average step completion rates, {ALGORITHM_LABELS[algorithm]} HPC training",
        fontsize=10,
    )
    figure.savefig(path, dpi=90)
    return path


# -- Figures 8 and 9 ------------------------------------------------------------------------------
def evaluated_metrics(cell: Cell) -> dict[str, float] | None:
    """The metrics of the cell's last successful evaluation, when its binding held."""
    if cell["status"] != "ok" or cell["details"].get("unbound"):
        return None
    found = [
        call["result"]
        for call in cell["details"].get("calls", [])
        if call["tool"] == "evaluate_model" and call["ok"] and "iog" in (call["result"] or {})
    ]
    if not found:
        return None
    return {key: float(found[-1][key]) for _, key, _ in METRIC_COLUMNS}


def model_rows(cells: list[Cell], algorithm: str) -> dict[str, tuple[int, dict[str, float]]]:
    """Per model: how many cells evaluated an agent-trained model of `algorithm`, and the mean
    of each metric over them."""
    rows = {}
    for model in models(cells):
        found = [
            metrics
            for c in cells
            if c["model"] == model
            and c.get("details", {}).get("task", {}).get("algorithm") == algorithm
            if (metrics := evaluated_metrics(c)) is not None
        ]
        if found:
            means = {key: fmean(m[key] for m in found) for _, key, _ in METRIC_COLUMNS}
            rows[f"{model} (agent-trained)"] = (len(found), means)
    return rows


def all_rows(
    cells: list[Cell], algorithm: str, computed: Mapping[str, Any] | None
) -> dict[str, tuple[int, dict[str, float]]]:
    rows = model_rows(cells, algorithm)
    if computed:
        for name, metrics in computed["metrics"].items():
            rows[f"Baseline: {baselines.LABELS[name]}"] = (int(computed["rows"]), metrics)
    return rows


def metrics_table(cells: list[Cell], algorithm: str, computed: Mapping[str, Any] | None) -> str:
    rows = all_rows(cells, algorithm, computed)
    head = "".join(f"<th>{name} {arrow(low)}</th>" for name, _, low in METRIC_COLUMNS)
    body = []
    for label, (count, metrics) in rows.items():
        numbers = "".join(f"<td>{metrics[key]:.4g}</td>" for _, key, _ in METRIC_COLUMNS)
        body.append(f'<tr><td class="l">{html.escape(label)}</td><td>{count}</td>{numbers}</tr>')
    if not body:
        body.append(
            f'<tr><td class="l" colspan="{2 + len(METRIC_COLUMNS)}">no model evaluated</td></tr>'
        )
    number = FIGURE_NUMBER[algorithm]
    caption = (
        f"Figure {number}: Offline model quality metrics for agent-trained "
        f"{ALGORITHM_LABELS[algorithm]} models vs. baselines computed here. Arrows indicate "
        "desired direction. Values averaged across the cells that evaluated a model (n)."
    )
    return (
        f"<table><caption>{caption}</caption><tr><th>Model</th><th>n</th>{head}</tr>"
        f"{''.join(body)}</table>"
    )


def metrics_figure(
    cells: list[Cell], algorithm: str, computed: Mapping[str, Any] | None, path: Path
) -> Path:
    """Figure 8 or 9: one bar panel per metric (COG, RVC, MMD, DPP), a bar per row."""
    rows = all_rows(cells, algorithm, computed)
    labels = list(rows)
    figure = Figure(figsize=(12, 3.6), layout="constrained")
    columns = {name: (key, low) for name, key, low in METRIC_COLUMNS}
    for index, name in enumerate(FIGURE_METRICS):
        key, low = columns[name]
        axes = figure.add_subplot(1, len(FIGURE_METRICS), index + 1)
        values = [rows[label][1][key] for label in labels]
        colours = ["C0" if not label.startswith("Baseline") else "C7" for label in labels]
        axes.bar(range(len(labels)), values, color=colours)
        short = [label.split(" (")[0].removeprefix("Baseline: ") for label in labels]
        axes.set_xticks(range(len(labels)), short, fontsize=7, rotation=35, ha="right")
        axes.set_title(f"{name} {'↓' if low else '↑'}", fontsize=9)
        if name == "COG":  # a random design's gap is ~1e9 beside a trained model's ~1e2
            axes.set_yscale("symlog")
    number = FIGURE_NUMBER[algorithm]
    figure.suptitle(
        f"Figure {number}: agent-trained {ALGORITHM_LABELS[algorithm]} models (blue) vs. "
        "baselines computed here (grey)",
        fontsize=10,
    )
    figure.savefig(path, dpi=90)
    return path
