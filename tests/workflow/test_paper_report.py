"""Issue 30: report.html holds the EngiAI paper's Tables 2 and 3 (with the Average row and
Table 3's Beams2D comparison rows), Figure 5 and Appendix E with the paper's names, says which
preset ran, and renders; `bench --preset paper` runs Photonics2D with EngiBench's defaults and
records it in every cell it touches."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.artifacts import artifact_folder
from tests.support.chromium import screenshot
from workbench.bench.earned import FAILS_EVERY_CALL
from workbench.bench.results import read_cells
from workbench.bench.runner import BenchError, plan, run_bench
from workbench.core.context import AppContext
from workbench_plugins.topopt.bench import report, tasks
from workbench_plugins.topopt.bench.suite import WorkflowSuite

SUITES = {suite.name: suite for suite in (WorkflowSuite("beams2d"), WorkflowSuite("photonics2d"))}


def run_cells(out: Path, styles: str, preset: str = "") -> None:
    """The refused-calls policy (no optimisation: quick) on example 0 of `styles`, both suites."""
    cells = plan(SUITES, list(SUITES), [FAILS_EVERY_CALL], [0], 1, [styles], preset=preset)
    context = AppContext.open(workspace=out.parent / f"{out.name}-session")
    try:
        outcome = run_bench(context, SUITES, cells, out)
    finally:
        context.close()
    assert not outcome.errors, outcome.errors


def test_the_report_has_the_papers_tables_and_figures_and_renders(
    reference_run: Path, workflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_HOME", str(workflow_home))
    out = tmp_path / "out"
    shutil.copytree(reference_run, out)  # the reference's Beams2D W-COND and NATURAL cells
    run_cells(out, "W-RAND,W-COND")  # and a second model on both problems
    page = (out / report.HTML_FILE).read_text()
    for caption in (
        "Table 2: Workflow evaluation results for Beams2D (mean &plusmn; std)",
        "Table 3: Workflow evaluation results for Photonics2D (mean &plusmn; std)",
        "Beams 2D (same styles, for comparison)",
        "Figure 5: Tool count vs. performance for the W-Rand style (Beams2D)",
        "Appendix E: raw sub-scores for Beams2D",
        "Appendix E: raw sub-scores for Photonics2D",
    ):
        assert caption in page, caption
    assert "<tr><th>Style</th><th>TC &uarr;</th><th>CO &uarr;</th>" in page
    for label in ("Full", "Natural", "W-Rand", "W-Derived", "W-Distract", "W-Cond", "W-Multi"):
        assert f'<td class="l">{label}</td>' in page, label
    assert page.count('<td class="l">Average</td>') == 3  # Table 2, Table 3 and its Beams2D rows
    raw_head = "".join(f"<th>{name}</th>" for name in ("IoU", "PA", "Obj", "Constr", "Conn", "WT"))
    assert page.count(raw_head) == 2
    assert "Preset: <b>fast (" in page and "renormalised" in page
    shot = tmp_path / "report.png"
    pixels = screenshot(out / report.HTML_FILE, shot, tmp_path / "profile")
    kept = artifact_folder() / "workflow-paper-report.png"
    shutil.copyfile(shot, kept)
    assert pixels.shape[0] >= 1000 and pixels.std() > 10, f"blank screenshot? see {kept}"


def test_preset_paper_runs_engibenchs_defaults_and_is_recorded(
    workflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_HOME", str(workflow_home))
    with pytest.raises(BenchError, match="--preset slow"):
        plan(SUITES, ["workflow-photonics2d"], ["reference"], [0], 1, preset="slow")
    out = tmp_path / "out"
    run_cells(out, "W-RAND", preset=tasks.PAPER)
    records = list(read_cells(out).values())
    assert {record["problem"] for record in records} == {"beams2d", "photonics2d"}
    for record in records:
        assert record["preset"] == "paper" and "preset=paper" in record["key"]
        assert record["details"]["preset"] == "paper"
    [photonics] = [record for record in records if record["problem"] == "photonics2d"]
    assert photonics["details"]["problem_config"]["num_optimization_steps"] == 200
    assert "num_optimization_steps: 200" in photonics["details"]["prompt"]
    assert "Preset: <b>paper (2 cells)" in (out / report.HTML_FILE).read_text()
    assert "<td>presets</td><td>paper</td>" in (out / "index.html").read_text()
