"""The `engjudge` suite's report: `engjudge-report.md`, the same as one offline HTML page
(`engjudge-report.html`, the report the run links to) and its figures `engjudge-report.png` and
`engjudge-correlation.png`, where the paper (seed 002) puts its results:

- Figure 5, per judge over all its graded cells: the Pearson correlation matrix of the raw stage
  scores (correlation.py);
- then one section per (generator, judge):
  - Table 8, per subject: EngJudge's S_final, the dependent (propagated, S_base) and independent
    (raw) stage means, and the SinglePass and SinglePass+DP baselines side by side;
  - Table 9, per stage: the independent (raw Y_t) and dependent (propagated S_t) means;
  - Table 4, the component ablation: S_final without dependency propagation, without the meta
    checks, without the missing-stage penalty, from the parts each cell stores (ablation.py);
  - Table 10, the topology ablation: the base score with the DAG, the chain and flat;
  - the judge's cost: calls, retried calls, judge failures, tokens and time (and the generator's).

Wherever the rule-based `rubric` judge's numbers appear, the section says it is rule-based and
shows no tokens (it has none); where the generator graded its own solutions (no --judge), the
section says so.

A cell whose judge failed has no score: it is counted under "judge failures" and left out of
every mean. A harness error is listed at the end of its section.

    python -m workbench_plugins.judging.bench.report RESULTS_FOLDER
"""

from __future__ import annotations

from pathlib import Path
from statistics import fmean

import numpy as np
from matplotlib.figure import Figure

from workbench.bench.markdown_page import markdown_page
from workbench.bench.report_command import rewrite_report
from workbench.bench.results import CellRecord
from workbench_plugins.judging.bench.ablation import ABLATIONS, ablated
from workbench_plugins.judging.bench.correlation import (
    TITLE,
    correlation_figure,
    correlation_table,
    stage_correlation,
)
from workbench_plugins.judging.bench.rule_judges import RULE_JUDGES
from workbench_plugins.judging.problems.model import SUBJECTS
from workbench_plugins.judging.scoring.stages import STAGE_NAMES, STAGES

SUITE = "engjudge"
REPORT = "engjudge-report.md"
PLOT = "engjudge-report.png"
PAGE = "engjudge-report.html"
CORRELATION_PLOT = "engjudge-correlation.png"
# the topologies as the paper's Table 10 names them
TOPOLOGIES = {"dag": "True DAG", "chain": "Strict Linear Chain", "flat": "Independent (Flat)"}
Group = tuple[str, str]  # (generator, judge)
RULE_NOTE = (
    "**Judge `{judge}` is rule-based, not a language model.** Its verdicts come from fixed rules "
    "built from the same templates the off-target policies write from (bench/rubric_judge.py), "
    "and it spends no tokens. Its numbers check the pipeline (parsing, caps, propagation, "
    "penalties) on planted faults; they measure no judge, and any gap between EngJudge and "
    "SinglePass below is the arithmetic of the two aggregations on the same rules, not a finding "
    "about one-pass judges."
)
SELF_NOTE = (
    "**The generator graded its own solutions** (no `--judge` was given, so the judge is the "
    "generator model): a model grading itself is not an independent measurement. Name another "
    "judge with `--judge`."
)


def ok(cells: list[CellRecord]) -> list[CellRecord]:
    return [c for c in cells if c.get("status") == "ok"]


def mean_of(cells: list[CellRecord], name: str) -> float | None:
    """The mean of a score over the cells that have it (a failed judge gives none)."""
    values = [float(c["scores"][name]) for c in ok(cells) if name in c.get("scores", {})]
    return fmean(values) if values else None


def shown(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def groups_of(cells: list[CellRecord]) -> list[Group]:
    """(generator, judge) pairs: the reference first, then off-target policies, then models."""
    pairs = {(str(c["model"]), str(c.get("judge", ""))) for c in cells}
    return sorted(pairs, key=lambda g: (g[0] != "reference", g[0].startswith("offtarget:"), g))


def failures(cells: list[CellRecord]) -> int:
    return sum(1 for c in ok(cells) if c["scores"].get("judge_failed") == 1.0)


def subject_table(cells: list[CellRecord]) -> list[str]:
    """Per subject: EngJudge beside the baselines (Table 8)."""
    lines = [
        "| subject | cells | judge failures | EngJudge S_final | dependent (S_base) | "
        "independent (raw mean) | SinglePass | SinglePass+DP |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    subjects = [s for s in SUBJECTS if any(c["problem"] == s for c in cells)]
    for subject in [*subjects, "all"]:
        mine = cells if subject == "all" else [c for c in cells if c["problem"] == subject]
        values = " | ".join(
            shown(mean_of(mine, name))
            for name in ("final", "s_base", "raw_mean", "single_pass", "single_pass_dp")
        )
        title = f"**{subject}**" if subject == "all" else subject.replace("_", " ")
        lines.append(f"| {title} | {len(mine)} | {failures(mine)} | {values} |")
    return lines


def stage_table(cells: list[CellRecord]) -> list[str]:
    """Per stage: independent (raw) and dependent (propagated) means (Table 9)."""
    lines = [
        "| stage | name | independent (raw) | dependent (propagated) | lost to propagation |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for stage in STAGES:
        raw, dependent = mean_of(cells, f"raw_{stage}"), mean_of(cells, f"dep_{stage}")
        lost = None if raw is None or dependent is None else raw - dependent
        values = f"{shown(raw)} | {shown(dependent)} | {shown(lost)}"
        lines.append(f"| {stage} | {STAGE_NAMES[stage]} | {values} |")
    return lines


def ablation_table(cells: list[CellRecord]) -> list[str]:
    """The base score under each topology, from the same raw scores (Table 10)."""
    lines = ["| topology | base score |", "| --- | ---: |"]
    for name, paper_name in TOPOLOGIES.items():
        lines.append(f"| {paper_name} ({name}) | {shown(mean_of(cells, f'base_{name}'))} |")
    return lines


def component_table(cells: list[CellRecord]) -> list[str]:
    """S_final with one component taken out, from each cell's stored parts (Table 4)."""
    variants = [v for v in (ablated(c["scores"]) for c in ok(cells)) if v is not None]
    lines = [
        f"| variant | S_final ({len(variants)} cells) | change from the full framework |",
        "| --- | ---: | ---: |",
    ]
    full = fmean(v["full"] for v in variants) if variants else None
    for name, paper_name in ABLATIONS:
        value = fmean(v[name] for v in variants) if variants else None
        change = None if value is None or full is None else value - full
        lines.append(f"| {paper_name} | {shown(value)} | {shown(change)} |")
    return lines


def judges_of(cells: list[CellRecord]) -> list[str]:
    return sorted({str(c.get("judge", "")) for c in cells})


def correlation_section(cells: list[CellRecord]) -> list[str]:
    """Figure 5 per judge: the matrix over all the judge's graded cells, as a figure and table."""
    lines = ["", f"## Figure 5: {TITLE}", ""]
    lines.append(
        "Per judge, over every cell it graded (all generators): the Pearson correlation of the "
        "raw stage scores Y_t. n/a: undefined (fewer than 2 cells, or a stage scored alike in "
        "every cell)."
    )
    lines += ["", f"![{TITLE}]({CORRELATION_PLOT})"]
    for judge in judges_of(cells):
        matrix, count = stage_correlation([c for c in cells if c.get("judge", "") == judge])
        kind = " (rule-based, not a model)" if rule_based(judge) else ""
        lines += ["", f"### judge {judge or '-'}{kind}: {count} cells", ""]
        lines += correlation_table(matrix)
    return lines


def correlation_plot(cells: list[CellRecord], path: Path) -> Path:
    panels = []
    for judge in judges_of(cells):
        matrix, count = stage_correlation([c for c in cells if c.get("judge", "") == judge])
        panels.append((f"judge {short(judge) or '-'}", matrix, count))
    return correlation_figure(panels, path)


def rule_based(judge: str) -> bool:
    return judge in RULE_JUDGES


def judge_notes(generator: str, judge: str) -> list[str]:
    """What a reader must know about this section's judge before reading its numbers."""
    if rule_based(judge):
        return [RULE_NOTE.format(judge=judge), ""]
    if judge and judge == generator:
        return [SELF_NOTE, ""]
    return []


def cost_table(cells: list[CellRecord], judge: str = "") -> list[str]:
    """The judge's and the generator's calls, tokens and seconds: totals and per cell. A
    rule-based judge shows its rule applications and no tokens (it has none)."""
    done = ok(cells)

    def total(name: str) -> float:
        return sum(float(c["scores"].get(name, 0.0)) for c in done)

    count = max(1, len(done))
    lines = [
        "| | calls | tokens in | tokens out | seconds |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for who, prefix in (("judge", "judge"), ("generator", "generator")):
        calls, t_in = total(f"{prefix}_calls"), total(f"{prefix}_tokens_in")
        t_out, seconds = total(f"{prefix}_tokens_out"), total(f"{prefix}_seconds")
        rules = prefix == "judge" and rule_based(judge)
        if rules:
            who = f"judge {judge} (rule-based: rule applications, no tokens)"
        tokens_total = ("-", "-") if rules else (f"{t_in:,.0f}", f"{t_out:,.0f}")
        tokens_each = ("-", "-") if rules else (f"{t_in / count:,.0f}", f"{t_out / count:,.0f}")
        lines.append(f"| {who}, total | {calls:.0f} | {' | '.join(tokens_total)} | {seconds:.2f} |")
        lines.append(
            f"| {who}, per cell | {calls / count:.1f} | {' | '.join(tokens_each)} | "
            f"{seconds / count:.2f} |"
        )
    retried = total("judge_calls_retried")
    lines += [
        "",
        f"Judge calls retried after malformed output: {retried:.0f}; judge failures (no score): "
        f"{failures(cells)} EngJudge, "
        f"{sum(1 for c in done if c['scores'].get('single_pass_failed') == 1.0)} SinglePass.",
    ]
    return lines


def report_text(cells: list[CellRecord], plot: str = PLOT) -> str:
    lines = [
        "# EngJudge: stage-wise grading of engineering solutions",
        "",
        "Each problem was solved by the generator in the 8 tagged stages and graded by the judge: "
        "EngJudge (one call per stage and three meta checks, caps, dependency propagation, "
        "S_final) and the SinglePass baseline (one call scoring all stages; +DP propagates its "
        "scores). Independent = the raw stage score Y_t; dependent = the propagated S_t. The "
        "final answer's error band is computed by our code against the ground truth. A section "
        "whose judge is rule-based (`rubric`) checks the pipeline and measures no judge; one "
        "whose generator judged itself measures no independent grade.",
        "",
        f"![per stage and per subject]({plot})",
        *correlation_section(cells),
    ]
    for generator, judge in groups_of(cells):
        mine = [c for c in cells if (c["model"], c.get("judge", "")) == (generator, judge)]
        kind = " (rule-based, not a model)" if rule_based(judge) else ""
        lines += ["", f"## generator {generator}, judge {judge or '-'}{kind}", ""]
        lines += judge_notes(generator, judge)
        lines += ["### Per subject (EngJudge and the baselines), Table 8", ""]
        lines += subject_table(mine)
        lines += ["", "### Per stage (Dep and Ind), Table 9", "", *stage_table(mine)]
        lines += ["", "### Component ablation of EngJudge, Table 4", "", *component_table(mine)]
        lines += ["", "### Propagation topology (base score), Table 10", ""]
        lines += ablation_table(mine)
        lines += ["", "### Judge calls, tokens and time", "", *cost_table(mine, judge)]
        errors = [c for c in mine if c.get("status") != "ok"]
        if errors:
            lines += ["", f"{len(errors)} cell(s) failed in the harness:"]
            lines += [f"- {c['key']}: {c.get('error', '')}" for c in errors]
    return "\n".join(lines) + "\n"


def short(name: str) -> str:
    kind, _, rest = name.partition(":")
    text = f"scripted:{Path(rest).name}" if kind == "scripted" else name.removeprefix("offtarget:")
    text = text if len(text) <= 22 else text[:21] + "…"
    return f"{text} (rules)" if rule_based(name) else text


def plot(cells: list[CellRecord], path: Path) -> Path:
    """Top: per stage, raw and propagated means of each (generator, judge). Bottom: per group,
    EngJudge's S_final beside SinglePass and SinglePass+DP."""
    groups = groups_of(cells)
    figure = Figure(figsize=(max(8.0, 2.0 + 1.4 * len(groups)), 8.0), layout="constrained")
    stages_axes, methods_axes = figure.add_subplot(2, 1, 1), figure.add_subplot(2, 1, 2)
    x = np.arange(len(STAGES))
    width = 0.8 / max(1, 2 * len(groups))
    for index, group in enumerate(groups):
        mine = [c for c in cells if (c["model"], c.get("judge", "")) == group]
        for kind, offset, hatch in (("raw", 0, ""), ("dep", 1, "//")):
            values = [mean_of(mine, f"{kind}_{s}") or 0.0 for s in STAGES]
            position = x - 0.4 + width * (2 * index + offset + 0.5)
            label = f"{short(group[0])} / {short(group[1])}: {'raw' if not offset else 'dep.'}"
            stages_axes.bar(position, values, width, label=label, hatch=hatch, color=f"C{index}")
    stages_axes.set_xticks(x, list(STAGES))
    stages_axes.set_ylim(0, 10.5)
    stages_axes.set_title("stage scores: independent (raw) and dependent (propagated)", fontsize=9)
    stages_axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    names = (("final", "EngJudge"), ("single_pass", "SinglePass"), ("single_pass_dp", "SP+DP"))
    gx = np.arange(len(groups))
    for index, (name, label) in enumerate(names):
        values = [
            mean_of([c for c in cells if (c["model"], c.get("judge", "")) == g], name) or 0.0
            for g in groups
        ]
        methods_axes.bar(gx + (index - 1) * 0.25, values, 0.25, label=label)
    methods_axes.set_xticks(gx, [f"{short(g)}\n{short(j)}" for g, j in groups], fontsize=7)
    methods_axes.set_ylim(0, 10.5)
    rules = any(rule_based(judge) for _, judge in groups)
    methods_axes.set_title(
        "mean score per generator / judge"
        + ("\n(rules) = rule-based judge: a pipeline check, not a finding" if rules else ""),
        fontsize=9,
    )
    methods_axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.savefig(path, dpi=90)
    return path


def write_report(folder: Path, cells: list[CellRecord]) -> Path:
    """The report of the suite's `cells` in `folder`: the Markdown, its figures and the HTML page
    (returned: the one a person opens)."""
    mine = sorted((c for c in cells if c.get("suite") == SUITE), key=lambda c: str(c["key"]))
    plot(mine, folder / PLOT)
    correlation_plot(mine, folder / CORRELATION_PLOT)
    text = report_text(mine)
    (folder / REPORT).write_text(text, encoding="utf-8")
    page = folder / PAGE
    page.write_text(markdown_page(text, folder, "EngJudge report"), encoding="utf-8")
    return page


def main(argv: list[str] | None = None) -> int:
    return rewrite_report("engjudge", write_report, argv)


if __name__ == "__main__":
    raise SystemExit(main())
