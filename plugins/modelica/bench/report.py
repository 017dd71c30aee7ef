"""The `modelica` suite's report: `modelica-report.html` (the page a person opens, from
`modelica-report.md`, with `modelica-report.png` embedded). First Pufibara's Table 4a-c
(`paper_tables`: per model and workflow, passed, tokens (M) and runtime (h) in the harness and
the plain loop, and the harness's pass-rate gain and token and runtime reductions); then per
model: pass counts per workflow and difficulty with the two modes side by side, where the
failures happened (check, simulate, behaviour, no submission), submissions that run but behave
wrongly, and logical tokens and wall time per task.

    python -m workbench_plugins.modelica.bench.report RESULTS_FOLDER
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from workbench.bench.markdown_page import markdown_page
from workbench.bench.report_command import rewrite_report
from workbench.bench.results import CellRecord
from workbench_plugins.modelica.bench.paper_tables import table_4

SUITE = "modelica"
REPORT = "modelica-report.md"
PAGE = "modelica-report.html"
PLOT = "modelica-report.png"
MODES = ("harness", "plain")
WORKFLOWS = {"model_repair": "repair", "model_generation": "generation", "model_tuning": "tuning"}
DIFFICULTIES = ("easy", "medium", "hard")
# failed_stage values of the evaluator, in gate order, then what happens before it
STAGES = ("interface", "constraints", "check", "simulate", "behaviour", "no_submission", "error")
STAGE_TITLES = {"no_submission": "no submission", "error": "harness error"}


def stage_of(cell: CellRecord) -> str:
    """ "" for a pass; the evaluator's failed stage; "error" when the harness failed."""
    if cell.get("status") != "ok":
        return "error"
    return str(cell.get("details", {}).get("failed_stage", ""))


def score(cell: CellRecord, name: str) -> float:
    return float(cell.get("scores", {}).get(name, 0.0))


def passed(cell: CellRecord) -> bool:
    return cell.get("status") == "ok" and score(cell, "passed") == 1.0


def models_of(cells: Iterable[CellRecord]) -> list[str]:
    """Reference first, then the off-target policies, then models by name."""
    return sorted(
        {str(c["model"]) for c in cells},
        key=lambda m: (m != "reference", m.startswith("offtarget:"), m),
    )


def short_model(model: str) -> str:
    """A model as a plot label: no policy prefix, a script by its file name, at most 24 chars."""
    kind, _, rest = model.partition(":")
    shown = model.removeprefix("offtarget:")
    if kind == "scripted":
        shown = f"scripted:{Path(rest).name}"
    return shown if len(shown) <= 24 else shown[:23] + "…"


def task_id_of(cell: CellRecord) -> str:
    return str(cell.get("details", {}).get("task_id") or str(cell["task"]).rsplit("/", 1)[0])


def _count(cells: list[CellRecord], mode: str, keep: Callable[[CellRecord], bool]) -> str:
    """ "passed/cells" of one mode, "-" when the mode did not run."""
    mine = [c for c in cells if c["style"] == mode]
    if not mine:
        return "-"
    return f"{sum(passed(c) for c in mine if keep(c))}/{sum(1 for c in mine if keep(c))}"


def headline_table(cells: list[CellRecord]) -> list[str]:
    """Pass counts per workflow and difficulty, the modes side by side (one model's cells)."""
    lines = [
        "| workflow | difficulty | tasks | " + " | ".join(f"{m} passed" for m in MODES) + " |",
        "| --- | --- | ---: | " + " | ".join("---:" for _ in MODES) + " |",
    ]
    for task_type, workflow in WORKFLOWS.items():
        of_type = [c for c in cells if c["problem"] == task_type]
        if not of_type:
            continue
        for difficulty in [d for d in DIFFICULTIES if any(c["condition"] == d for c in of_type)]:
            group = [c for c in of_type if c["condition"] == difficulty]
            counts = " | ".join(_count(group, m, lambda c: True) for m in MODES)
            lines.append(f"| {workflow} | {difficulty} | {len(_tasks(group))} | {counts} |")
        counts = " | ".join(f"**{_count(of_type, m, lambda c: True)}**" for m in MODES)
        lines.append(f"| **{workflow}** | all | {len(_tasks(of_type))} | {counts} |")
    counts = " | ".join(f"**{_count(cells, m, lambda c: True)}**" for m in MODES)
    lines.append(f"| **all** | | {len(_tasks(cells))} | {counts} |")
    return lines


def _tasks(cells: list[CellRecord]) -> set[str]:
    return {task_id_of(c) for c in cells}


def stage_table(cells: list[CellRecord]) -> list[str]:
    """Per mode: how many passed and where each of the others failed."""
    titles = [STAGE_TITLES.get(s, s) for s in STAGES]
    lines = [
        "| mode | cells | passed | " + " | ".join(titles) + " |",
        "| --- | ---: | ---: | " + " | ".join("---:" for _ in STAGES) + " |",
    ]
    for mode in MODES:
        mine = [c for c in cells if c["style"] == mode]
        if not mine:
            continue
        stages = [stage_of(c) for c in mine]
        counts = " | ".join(str(stages.count(s)) for s in STAGES)
        lines.append(f"| {mode} | {len(mine)} | {stages.count('')} | {counts} |")
    return lines


def wrong_table(cells: list[CellRecord]) -> list[str]:
    """Per mode: submissions, executable ones, and executable but behaviourally wrong ones
    (per workflow too: the paper counts them on hard generation tasks)."""
    lines = [
        "| mode | submitted | executable | executable but behaviourally wrong | "
        + " | ".join(WORKFLOWS.values())
        + " | hard generation |",
        "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in WORKFLOWS) + " | ---: |",
    ]
    for mode in MODES:
        mine = [c for c in cells if c["style"] == mode and c.get("status") == "ok"]
        if not mine:
            continue
        wrong = [c for c in mine if score(c, "executable_but_wrong") == 1.0]
        per = " | ".join(str(sum(c["problem"] == t for c in wrong)) for t in WORKFLOWS)
        hard = sum(c["problem"] == "model_generation" and c["condition"] == "hard" for c in wrong)
        submitted = sum(score(c, "submitted") == 1.0 for c in mine)
        executable = sum(score(c, "executable") == 1.0 for c in mine)
        lines.append(f"| {mode} | {submitted} | {executable} | {len(wrong)} | {per} | {hard} |")
    return lines


def _cost(cell: CellRecord | None) -> str:
    if cell is None:
        return "- | - | - | -"
    verdict = "pass" if passed(cell) else STAGE_TITLES.get(stage_of(cell), stage_of(cell))
    tokens = (
        f"{score(cell, 'tokens_logical'):,.0f} ({score(cell, 'tokens_input'):,.0f} in, "
        f"{score(cell, 'tokens_cache_read') + score(cell, 'tokens_cache_creation'):,.0f} "
        f"cache, {score(cell, 'tokens_output'):,.0f} out)"
    )
    return f"{verdict} | {tokens} | {score(cell, 'wall_s'):.2f} | {score(cell, 'turns'):.0f}"


def cost_table(cells: list[CellRecord]) -> list[str]:
    """One row per task: each mode's verdict, logical tokens (and their kinds), wall s, turns;
    then the totals and the harness's saving in logical tokens."""
    head = " | ".join(
        f"{m}: result | {m}: logical tokens | {m}: wall s | {m}: turns" for m in MODES
    )
    lines = [
        f"| task | workflow | difficulty | {head} |",
        "| --- | --- | --- | " + " | ".join("--- | ---: | ---: | ---:" for _ in MODES) + " |",
    ]
    by_task: dict[str, dict[str, CellRecord]] = {}
    for cell in cells:
        by_task.setdefault(task_id_of(cell), {})[str(cell["style"])] = cell
    for task_id, modes in sorted(by_task.items()):
        any_cell = next(iter(modes.values()))
        workflow = WORKFLOWS.get(str(any_cell["problem"]), str(any_cell["problem"]))
        shown = " | ".join(_cost(modes.get(m)) for m in MODES)
        lines.append(f"| {task_id} | {workflow} | {any_cell['condition']} | {shown} |")
    totals = {m: _total(cells, m, "tokens_logical") for m in MODES}
    walls = {m: _total(cells, m, "wall_s") for m in MODES}
    total = [
        part for m in MODES for part in ("", f"**{totals[m]:,.0f}**", f"**{walls[m]:.1f}**", "")
    ]
    lines.append("| **total** | | | " + " | ".join(total) + " |")
    if totals["plain"] > 0 and totals["harness"] > 0:
        saving = 100.0 * (1.0 - totals["harness"] / totals["plain"])
        compared = f"{abs(saving):.1f} % {'fewer' if saving >= 0 else 'more'}"
        lines += ["", f"The harness used {compared} logical tokens than the plain loop."]
    return lines


def _total(cells: list[CellRecord], mode: str, name: str) -> float:
    return sum(score(c, name) for c in cells if c["style"] == mode and c.get("status") == "ok")


def report_text(cells: list[CellRecord], plot: str = PLOT) -> str:
    """The whole Markdown report: one section per model (policy) that ran."""
    lines = [
        "# Modelica Agent Workflow Benchmark",
        "",
        "Each task ran in a fresh workspace, in the harness (ledger, explicit submission) and in "
        "the plain loop (files, check and simulate only; the last model is submitted). The "
        "evaluator judged each submission.json after its run: interface, constraints, check, "
        "simulation and behaviour. Logical tokens = uncached input + cache creation + cache read "
        "+ output, as the backend reported them.",
        "",
        f"![pass counts, failure stages and tokens per mode]({plot})",
        "",
        *table_4(cells, models_of(cells)),
    ]
    for model in models_of(cells):
        mine = [c for c in cells if c["model"] == model]
        errors = [c for c in mine if c.get("status") != "ok"]
        lines += ["", f"## {model}", "", "### Passed, per workflow and difficulty", ""]
        lines += headline_table(mine)
        lines += ["", "### Where the submissions failed", "", *stage_table(mine)]
        lines += ["", "### Executable but behaviourally wrong submissions", ""]
        lines += wrong_table(mine)
        lines += ["", "### Logical tokens and wall time per task", "", *cost_table(mine)]
        if errors:
            lines += ["", f"{len(errors)} cell(s) failed in the harness:"]
            lines += [f"- {c['key']}: {c.get('error', '')}" for c in errors]
    return "\n".join(lines) + "\n"


def plot(cells: list[CellRecord], path: Path) -> Path:
    """Three panels, one bar group per (model, mode): tasks passed per workflow, the outcome
    of every cell (passed or its failed stage), mean logical tokens per task."""
    groups = [(m, mode) for m in models_of(cells) for mode in MODES]
    groups = [g for g in groups if any(_in(c, g) for c in cells)]
    labels = [f"{short_model(m)}\n{mode}" for m, mode in groups]
    figure = Figure(figsize=(max(7.0, 2.0 + 1.0 * len(groups)), 9.0), layout="constrained")
    passes, stages, tokens = (figure.add_subplot(3, 1, i) for i in (1, 2, 3))
    x = np.arange(len(groups))
    width = 0.8 / len(WORKFLOWS)
    for index, (task_type, workflow) in enumerate(WORKFLOWS.items()):
        per_group = [
            sum(passed(c) for c in cells if _in(c, g) and c["problem"] == task_type) for g in groups
        ]
        passes.bar(x + (index - 1) * width, per_group, width, label=workflow)
    passes.set_title("tasks passed, per workflow", fontsize=9)
    bottom = np.zeros(len(groups))
    for stage in ("", *STAGES):
        counts = np.array([sum(stage_of(c) == stage for c in cells if _in(c, g)) for g in groups])
        if counts.any():
            title = STAGE_TITLES.get(stage, stage or "passed")
            stages.bar(x, counts, 0.6, bottom=bottom, label=title)
            bottom += counts
    stages.set_title("outcome of every cell: passed, or where it failed", fontsize=9)
    means = [
        float(np.mean([score(c, "tokens_logical") for c in cells if _in(c, g)])) for g in groups
    ]
    tokens.bar(x, means, 0.6, color="tab:gray")
    tokens.set_ylim(0, max([1.0, *means]) * 1.1)
    tokens.set_title("logical tokens per task, mean (direct policies call no model: 0)", fontsize=9)
    for axes in (passes, stages, tokens):
        axes.set_xticks(x, labels, fontsize=7)
    for axes in (passes, stages):
        if axes.get_legend_handles_labels()[0]:
            axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.savefig(path, dpi=90)
    return path


def _in(cell: CellRecord, group: tuple[str, str]) -> bool:
    return (cell["model"], cell["style"]) == group


def write_report(folder: Path, cells: list[CellRecord]) -> Path:
    """The report of `cells` (the suite's) in `folder`: the Markdown, its figure and the HTML
    page (returned: the one a person opens)."""
    mine = sorted(
        (c for c in cells if c.get("suite") == SUITE),
        key=lambda c: (str(c["model"]), str(c["task"])),
    )
    plot(mine, folder / PLOT)
    text = report_text(mine)
    (folder / REPORT).write_text(text, encoding="utf-8")
    path = folder / PAGE
    title = "Modelica Agent Workflow Benchmark"
    path.write_text(markdown_page(text, folder, title), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    return rewrite_report("modelica", write_report, argv)


if __name__ == "__main__":
    raise SystemExit(main())
