"""Issue 30 (Modelica): Pufibara's Table 4a-c in the suite's report. The arithmetic reproduces the
paper's own rows; a run of two fake backends (scripted models reporting their tokens) on one task
of each workflow in both modes gives Tables 4a, 4b and 4c with the recorded totals, in the
Markdown and in the HTML page, which renders in headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.chromium import screenshot
from workbench.bench.results import read_cells
from workbench.bench.runner import PlannedCell, run_bench
from workbench.core.context import AppContext
from workbench_plugins.modelica.bench import paper_tables
from workbench_plugins.modelica.bench.report import PAGE, REPORT, write_report
from workbench_plugins.modelica.bench.suite import ModelicaSuite
from workbench_plugins.modelica.task_packages.contract import ModelAnswer, ParameterAnswer
from workbench_plugins.modelica.task_packages.packages import TaskPackage

# Pufibara Table 4a (DeepSeek v4 Flash): (tasks, harness passed, tokens M, runtime h, the
# baseline's passed, tokens M, runtime h)
PAPER_4A = {
    "model_repair": (132, 130, 39.8, 4.07, 124, 227.0, 9.78),
    "model_generation": (50, 35, 17.0, 2.34, 27, 81.1, 2.49),
    "model_tuning": (50, 37, 22.9, 3.56, 34, 111.6, 6.96),
}


def _cells(
    model: str, workflow: str, mode: str, row: tuple[int, int, float, float]
) -> list[dict[str, Any]]:
    """Cells whose totals are one row of the paper's (tasks, passed, tokens M, runtime h),
    tokens and runtime spread evenly."""
    tasks, passed, tokens_m, hours = row
    return [
        {
            "model": model,
            "problem": workflow,
            "style": mode,
            "task": f"{workflow}_{number}/{mode}",
            "status": "ok",
            "scores": {
                "passed": float(number < passed),
                "tokens_logical": tokens_m * 1e6 / tasks,
                "wall_s": hours * 3600.0 / tasks,
            },
        }
        for number in range(tasks)
    ]


def test_table_4_reproduces_the_papers_deepseek_rows() -> None:
    cells = []
    for workflow, (n, h_pass, h_tok, h_h, p_pass, p_tok, p_h) in PAPER_4A.items():
        cells += _cells("deepseek", workflow, "harness", (n, h_pass, h_tok, h_h))
        cells += _cells("deepseek", workflow, "plain", (n, p_pass, p_tok, p_h))
    table_a = paper_tables.table_4ab(cells, "deepseek")
    assert table_a[0] == "| Workflow | Harness | Passed | Tokens (M) | Runtime (h) |"
    assert "| Repair | Pufibara (harness) | 130/132 | 39.8 | 4.07 |" in table_a
    assert "|  | plain loop | 124/132 | 227.0 | 9.78 |" in table_a
    assert "| Tuning | Pufibara (harness) | 37/50 | 22.9 | 3.56 |" in table_a
    table_c = paper_tables.table_4c(cells, ["deepseek"])
    head = "| Backend | Workflow | Pass-rate gain | Token reduction | Runtime reduction |"
    assert table_c[0] == head
    # the paper's gains and token reductions; its runtime reductions for generation and tuning
    # (6.1 %, 48.8 %) come from unrounded totals, these from the rounded ones it prints
    assert table_c[2:] == [
        "| deepseek | Repair | +4.5 pp | 82.5% | 58.4% |",
        "|  | Generation | +16.0 pp | 79.0% | 6.0% |",
        "|  | Tuning | +6.0 pp | 79.5% | 48.9% |",
    ]


def test_small_totals_stay_readable_and_a_baseline_without_tokens_is_not_divided_by() -> None:
    assert paper_tables.millions(4_321) == "0.0043"
    assert paper_tables.millions(0) == "0.0"
    assert paper_tables.hours(2.0) == "0.00056"
    assert paper_tables.hours(4.07 * 3600) == "4.07"
    assert paper_tables.reduction(10.0, 0.0).startswith("n/a")
    assert paper_tables.reduction(150.0, 100.0) == "-50.0%"  # the harness used more


def _fake_script(package: TaskPackage, scale: int) -> list[dict[str, Any]]:
    """A fake backend's replies for one task: put the known-valid answer in, say it is done
    (the plain loop ends there and submits), then submit (the harness needs it). Each reply
    reports tokens, `scale` times a base usage."""
    task, answer = package.task, package.contract.known_valid
    if isinstance(answer, ParameterAnswer):
        args = {"model": task.model_name, "stop_time": task.stop_time}
        args |= {"intervals": task.intervals, "parameters": answer.parameter_set}
        first = [{"name": "simulate", "args": args}]
    else:
        assert isinstance(answer, ModelAnswer)
        path = f"{task.model_name.rsplit('.', 1)[-1]}.mo"
        first = [{"name": "write_file", "args": {"path": path, "text": answer.final_model}}]
    replies: list[dict[str, Any]] = [
        {"tool_calls": first},
        {"content": "Done: the model meets the brief."},
        {"tool_calls": [{"name": "submit", "args": {"override": True, "note": "done"}}]},
    ]
    for number, reply in enumerate(replies, start=1):
        reply["usage"] = {
            "input_tokens": scale * (1000 + 200 * number),
            "output_tokens": scale * 30,
            "input_token_details": {"cache_read": scale * 400, "cache_creation": 0},
        }
    return replies


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """Two fake backends (scripted models) on one task per workflow, in both modes, into one
    results folder; the report written over all of its cells."""
    folder = tmp_path_factory.mktemp("fake-backends")
    suite = ModelicaSuite()
    scripts = {scale: folder / f"fake-backend-{scale}x.json" for scale in (1, 3)}
    models = [f"scripted:{path}" for path in scripts.values()]
    out = folder / "out"
    for workflow in ("model_repair", "model_generation", "model_tuning"):
        task_id = min(t for t, p in suite.packages.items() if p.task.task_type == workflow)
        for scale, path in scripts.items():  # one model, the script of this task
            path.write_text(json.dumps(_fake_script(suite.packages[task_id], scale)), "utf-8")
        tasks = [t for t in suite.tasks() if t.payload["task_id"] == task_id]
        context = AppContext.open(workspace=folder / f"session-{workflow}")
        try:
            cells = [PlannedCell(suite.name, t, m, 0) for t in tasks for m in models]
            assert run_bench(context, {suite.name: suite}, cells, out).errors == []
        finally:
            context.close()
    write_report(out, list(read_cells(out).values()))
    return out, models


def test_table_4_of_two_fake_backends_holds_their_recorded_totals(
    fake_run: tuple[Path, list[str]],
) -> None:
    out, models = fake_run
    cells = list(read_cells(out).values())
    assert len(cells) == 12 and all(c["scores"]["passed"] == 1.0 for c in cells)
    text = (out / REPORT).read_text(encoding="utf-8")
    table = text.split("## Table 4", 1)[1].split("\n## ", 1)[0]
    for letter, model in zip("ab", models, strict=True):
        assert f"### ({letter}) {model}" in table
        for workflow, title in paper_tables.WORKFLOW_TITLES.items():
            mine = [c for c in cells if c["model"] == model and c["problem"] == workflow]
            harness = [c for c in mine if c["style"] == "harness"]
            tokens = sum(c["scores"]["tokens_logical"] for c in harness)
            assert tokens > 0
            hours = paper_tables.hours(sum(c["scores"]["wall_s"] for c in harness))
            row = f"| {title} | Pufibara (harness) | 1/1 | {paper_tables.millions(tokens)} | "
            assert f"{row}{hours} |" in table
    assert "### (c) Pufibara relative to the plain loop" in table
    relative = table.split("### (c)", 1)[1]
    assert relative.count("+0.0 pp") == 6  # both pass everything in both modes
    assert "n/a" not in relative  # the plain loop reported tokens


def test_the_report_page_shows_every_table_and_renders_in_chromium(
    fake_run: tuple[Path, list[str]], tmp_path: Path
) -> None:
    out, models = fake_run
    page = (out / PAGE).read_text(encoding="utf-8")
    for head in (*paper_tables.HEAD_AB, *paper_tables.HEAD_C):
        assert re.search(rf"<th[^>]*>{re.escape(head)}</th>", page), head
    for title in ("(a) " + models[0], "(b) " + models[1], "(c) Pufibara relative"):
        assert title in page
    assert 'src="data:image/png;base64,' in page  # the figure travels with the page
    grey = screenshot(out / PAGE, tmp_path / "page.png", tmp_path / "profile")
    assert grey.std() > 10  # text, tables and the figure: not a blank page
    assert (grey < 100).mean() > 0.005  # dark pixels: text was drawn
