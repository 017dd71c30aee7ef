"""The stage-correlation matrix (seed 002, Figure 5): the Pearson correlation between the raw
stage scores Y_t over every graded cell of one judge, as a table and as a heatmap.

A correlation needs two cells and a stage whose scores vary: where they do not (every cell of a
stage scored alike), the entry is undefined, shown as "n/a", never made up.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from workbench.bench.results import CellRecord
from workbench_plugins.judging.scoring.stages import STAGES

TITLE = "Pearson correlation matrix of raw stage scores"


def raw_rows(cells: list[CellRecord]) -> np.ndarray:
    """One row per graded cell (every raw_<stage> stored), one column per stage."""
    rows = [
        [float(cell["scores"][f"raw_{stage}"]) for stage in STAGES]
        for cell in cells
        if cell.get("status") == "ok"
        and all(f"raw_{stage}" in cell.get("scores", {}) for stage in STAGES)
    ]
    return np.array(rows, dtype=float).reshape(len(rows), len(STAGES))


def stage_correlation(cells: list[CellRecord]) -> tuple[np.ndarray, int]:
    """The 8 x 8 matrix (NaN where undefined) and the number of cells it rests on."""
    rows = raw_rows(cells)
    matrix = np.full((len(STAGES), len(STAGES)), np.nan)
    if len(rows) < 2:
        return matrix, len(rows)
    varies = rows.std(axis=0) > 0
    if varies.any():
        kept = np.flatnonzero(varies)
        inner = np.corrcoef(rows[:, kept], rowvar=False)
        matrix[np.ix_(kept, kept)] = np.atleast_2d(inner)
    return matrix, len(rows)


def entry(value: float) -> str:
    return "n/a" if np.isnan(value) else f"{value:.2f}"


def correlation_table(matrix: np.ndarray) -> list[str]:
    """The matrix as a Markdown table, stages as rows and columns."""
    lines = [
        "| | " + " | ".join(STAGES) + " |",
        "| --- | " + " | ".join("---:" for _ in STAGES) + " |",
    ]
    for index, stage in enumerate(STAGES):
        lines.append(f"| {stage} | " + " | ".join(entry(v) for v in matrix[index]) + " |")
    return lines


def correlation_figure(panels: list[tuple[str, np.ndarray, int]], path: Path) -> Path:
    """One heatmap per judge (label, matrix, cells): red positive, blue negative, grey n/a."""
    count = max(1, len(panels))
    figure = Figure(figsize=(5.2 * count, 4.8), layout="constrained")
    for index, (label, matrix, cells) in enumerate(panels):
        axes = figure.add_subplot(1, count, index + 1)
        axes.set_facecolor("0.85")  # NaN cells are left undrawn: grey shows through
        image = axes.imshow(np.ma.masked_invalid(matrix), cmap="RdBu_r", vmin=-1.0, vmax=1.0)
        for row in range(len(STAGES)):
            for column in range(len(STAGES)):
                value = matrix[row, column]
                ink = "white" if not np.isnan(value) and abs(value) > 0.6 else "black"
                text = entry(value)
                axes.text(column, row, text, ha="center", va="center", fontsize=6, color=ink)
        axes.set_xticks(range(len(STAGES)), list(STAGES), fontsize=7)
        axes.set_yticks(range(len(STAGES)), list(STAGES), fontsize=7)
        axes.set_title(f"{label}\n{cells} cells", fontsize=8)
        figure.colorbar(image, ax=axes, shrink=0.7)
    figure.suptitle(f"Figure 5: {TITLE}", fontsize=9)
    figure.savefig(path, dpi=90)
    return path
