"""On a small reference run: EngiBench time is measured inside each cell, a rerun gives the same
results.jsonl (apart from the volatile keys), and report.html renders in headless Chromium.

Whether the evaluators validate (the reference scores TC = 1, every off-target policy fails what
it targets) is checked on the whole CI grid by .ci/run, through the validate command; its
verdicts are tested in test_validate_checks.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.artifacts import artifact_folder
from tests.support.chromium import screenshot
from tests.workflow.conftest import REFERENCE_TASKS, run_reference
from workbench_plugins.topopt.bench import report
from workbench_plugins.topopt.bench.suite import VOLATILE_KEYS


def test_engibench_time_is_measured_inside_each_cell(reference_run: Path) -> None:
    """The overhead ratio's denominator: the worker's own EngiBench time arrives (not 0) and never
    exceeds the cell's wall time; frame streaming is counted apart, as overhead."""
    reference = report.workflow_cells(reference_run)
    assert {r["task"] for r in reference} == set(REFERENCE_TASKS)
    designed = [r for r in reference if r["style"] != "NATURAL"]
    assert designed
    for record in designed:
        timing = record["details"]["timing"]
        assert 0.5 < timing["engibench_s"] <= record["duration_s"], record["key"]
        assert 0.0 < timing["streaming_s"] < timing["engibench_s"], record["key"]
    cost = report.overhead(reference)
    assert 1.0 <= cost["ratio"] < 3.0 and cost["cells"] == len(reference)


def _strip(record: dict[str, Any]) -> dict[str, Any]:
    record = json.loads(json.dumps(record))
    for key in VOLATILE_KEYS:
        parts = key.split(".")
        holder = record
        for part in parts[:-1]:
            holder = holder.get(part, {})
        holder.pop(parts[-1], None)
    return record


def test_rerun_gives_identical_results_apart_from_volatile_keys(
    reference_run: Path, workflow_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_HOME", str(workflow_home))  # the same ground-truth cache
    run_reference(tmp_path / "again")
    first = {r["key"]: r for r in report.workflow_cells(reference_run)}
    rerun = report.workflow_cells(tmp_path / "again")
    assert len(rerun) == len(REFERENCE_TASKS)
    for record in rerun:
        assert _strip(record) == _strip(first[record["key"]]), record["key"]
    text = (tmp_path / "again" / "results.jsonl").read_text()
    assert str(tmp_path) not in text and str(workflow_home) not in text  # no absolute paths


def test_report_has_csv_and_renders_in_headless_chromium(
    reference_run: Path, tmp_path: Path
) -> None:
    folder = reference_run
    csv_lines = (folder / report.CSV_FILE).read_text().splitlines()
    assert csv_lines[0].startswith("key,problem,style,model,seed,example,status")
    assert len(csv_lines) == 1 + len(REFERENCE_TASKS)
    page = (folder / report.HTML_FILE).read_text()
    assert page.count("<table>") >= 1 and page.count("data:image/png;base64,") >= 4
    assert "http://" not in page and "https://" not in page  # offline
    shot = tmp_path / "report.png"
    pixels = screenshot(folder / report.HTML_FILE, shot, tmp_path / "profile")
    kept = artifact_folder() / "workflow-report.png"
    shutil.copyfile(shot, kept)
    assert pixels.shape[0] >= 1000 and pixels.std() > 10, f"blank screenshot? see {kept}"
    assert (pixels < 128).mean() > 0.01  # text, table lines and plots are drawn
