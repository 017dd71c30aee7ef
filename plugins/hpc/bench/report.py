"""The `hpc-beams2d` report in the results folder: `hpc-report.html` with the scores per model
and prompt style, the EngiAI paper's Figure 7 (step completion) and Figures 8 and 9 (model
quality metrics beside baselines computed here), each as a table and as a PNG file in
`hpc-figures/` linked from the page. The bench run writes it (HpcSuite.report); DIR/index.html
links it.

    python -m workbench_plugins.hpc.bench.report RESULTS_FOLDER
"""

from __future__ import annotations

import argparse
import html
from pathlib import Path
from statistics import fmean, pstdev
from typing import Any

from workbench.bench.report_page import harness_errors, write_page
from workbench.bench.results import read_cells
from workbench.core.paths import app_paths
from workbench_plugins.hpc.bench import baselines, paper_figures, scoring
from workbench_plugins.hpc.bench.prompts import STYLES
from workbench_plugins.hpc.tools.outputs import DATASETS_FOLDER

HTML_FILE = "hpc-report.html"
FIGURES = "hpc-figures"
SUITE = "hpc-beams2d"
ALGORITHMS = tuple(paper_figures.ALGORITHM_LABELS)
SCORE_COLUMNS = (
    ("Score", "hpc_score"),
    ("Steps", "step_rate"),
    ("Config", "config_ok"),
    ("Metrics", "metrics_verified"),
    ("TC", "task_completion"),
    ("ToolEff", "tool_efficiency"),
    ("CO", "overall"),
)
CSS = """body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;
margin:8px 0 20px}td,th{border:1px solid #bbb;padding:4px 8px;text-align:right}
th{background:#eee}td.l{text-align:left}img{max-width:100%;border:1px solid #ddd;margin:4px 0}
.err{color:#a00}caption{text-align:left;font-weight:bold;padding:4px 0}"""

Cell = dict[str, Any]


def _mean_std(values: list[float]) -> str:
    return f"{fmean(values):.2f}&plusmn;{pstdev(values):.2f}" if values else "&ndash;"


def scores_table(cells: list[Cell]) -> str:
    """Each score, mean &plusmn; std per model and prompt style."""
    head = "".join(f"<th>{name}</th>" for name, _ in SCORE_COLUMNS)
    rows = []
    ok = [c for c in cells if c["status"] == "ok"]
    for model in paper_figures.models(ok):
        for style in STYLES:
            group = [c for c in ok if c["model"] == model and c["style"] == style]
            if not group:
                continue
            numbers = "".join(
                f"<td>{_mean_std([float(c['scores'][key]) for c in group])}</td>"
                for _, key in SCORE_COLUMNS
            )
            rows.append(
                f'<tr><td class="l">{html.escape(model)}</td><td class="l">{style}</td>'
                f"<td>{len(group)}</td>{numbers}</tr>"
            )
    caption = "HPC scores per model and prompt style (mean &plusmn; std over cells)"
    return (
        f"<table><caption>{caption}</caption><tr><th>Model</th><th>Style</th><th>n</th>{head}"
        f"</tr>{''.join(rows)}</table>"
    )


def scoring_note(cells: list[Cell]) -> str:
    invented = sum(1 for c in cells if c.get("details", {}).get("invented"))
    unbound = sum(1 for c in cells if c.get("details", {}).get("unbound"))
    weights = " + ".join(f"{w:g} {name}" for name, w in scoring.BASE_WEIGHTS.items())
    return (
        f"<p>Scoring (Appendix A.3): Score = {weights} (a step's secondary weight moves to the "
        "steps when the step was not done); CO = 0.6 Score + 0.2 TC + 0.2 ToolEff. Only calls "
        "that succeeded count. The metrics term counts a metric only when the final answer "
        "states it and an evaluate_model call of the cell computed that value from the job's "
        "downloaded outputs (the spec's regex count is kept as metrics_extracted in "
        "results.jsonl). A metric stated that no evaluation produced zeroes Score, TC and CO "
        f"({invented} cell(s) here); outputs changed or gone since their evaluation zero them "
        f"too ({unbound} cell(s) here).</p>"
    )


def recipe_of(cells: list[Cell]) -> dict[str, Any] | None:
    """What the run's jobs trained (training.json's recipe), from a cell that evaluated one."""
    for cell in cells:
        for evaluated in cell.get("details", {}).get("evaluated_outputs", []) or []:
            if isinstance(evaluated, dict) and evaluated.get("recipe"):
                return dict(evaluated["recipe"])
    return None


def _figure_link(folder: Path, path: Path, alt: str) -> str:
    target = path.relative_to(folder).as_posix()
    return f'<p><a href="{target}"><img alt="{html.escape(alt)}" src="{target}"></a></p>'


def write_report(folder: Path, cells: list[Cell] | None = None) -> Path:
    if cells is None:
        cells = list(read_cells(folder).values())
    cells = [c for c in cells if c["suite"] == SUITE]
    figures = folder / FIGURES
    figures.mkdir(exist_ok=True)
    recipe = recipe_of(cells)
    cache = app_paths().cache_dir / DATASETS_FOLDER  # the evaluation's own dataset cache
    computed = baselines.baselines(folder, recipe, cache) if recipe else None
    parts = [
        f"<h1>HPC training benchmark (hpc-beams2d)</h1><p>{len(cells)} cells in "
        f"{html.escape(str(folder))}; every cell in results.jsonl.</p>",
        scoring_note(cells),
    ]
    parts.append(harness_errors(cells))
    parts += ["<h2>Scores</h2>", scores_table(cells), "<h2>Figure 7: step completion</h2>"]
    for algorithm in ALGORITHMS:
        path = figures / f"figure7-{algorithm}.png"
        paper_figures.step_figure(cells, algorithm, path)
        parts += [paper_figures.step_table(cells, algorithm), _figure_link(folder, path, "fig7")]
    parts.append("<h2>Figures 8 and 9: model quality metrics</h2>")
    if computed is None:
        parts.append(
            "<p>No cell evaluated a model: no baselines were computed (they need the "
            "dataset the jobs trained on).</p>"
        )
    else:
        parts.append(
            f"<p>Baselines computed here over the dataset's {computed['rows']} test conditions "
            f"(dataset {computed['dataset']}), scored as a trained model is: "
            + "; ".join(html.escape(label) for label in baselines.LABELS.values())
            + f". Numbers in <a href='{baselines.BASELINE_FILE}'>{baselines.BASELINE_FILE}"
            "</a>. The paper's EngiBench baseline models are not available offline.</p>"
        )
    for algorithm in ALGORITHMS:
        number = paper_figures.FIGURE_NUMBER[algorithm]
        path = figures / f"figure{number}-{algorithm}.png"
        paper_figures.metrics_figure(cells, algorithm, computed, path)
        parts += [
            paper_figures.metrics_table(cells, algorithm, computed),
            _figure_link(folder, path, f"fig{number}"),
        ]
    return write_page(folder / HTML_FILE, "HPC benchmark", CSS, parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a bench --out folder")
    args = parser.parse_args(argv)
    if not (args.folder / "results.jsonl").is_file():
        parser.error(f"{args.folder} holds no results.jsonl: not a bench --out folder")
    print(write_report(args.folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
