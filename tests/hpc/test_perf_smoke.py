"""The 1,000-job benchmark runs (on a few jobs here) and reports its figures; no timing asserts:
the speed is judged by `python -m workbench_plugins.hpc.perf` against its same-run baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench_plugins.hpc import perf
from workbench_plugins.hpc.slurm.parsers import parse_squeue

FIELDS = {
    "jobs",
    "rows_parsed",
    "squeue_calls_per_poll",
    "other_calls_per_poll",
    "parse_max_ms",
    "parse_mean_ms",
    "states_poll_max_ms",
    "parse_ok",
    "refresh_rows",
    "refresh_gap_max_ms",
    "refresh_call_max_ms",
    "baseline_rows",
    "baseline_gap_max_ms",
    "gap_ok",
    "polls",
}


def test_generated_squeue_text_is_what_the_client_parses() -> None:
    rows = parse_squeue(perf.squeue_text(20), perf.HOST)
    assert len(rows) == 20
    assert rows[0].name == "train-0|seed 0", "a name holding the separator stays whole"
    tasks = [row for row in rows if row.array_task is not None]
    assert [row.job_id for row in tasks[:4]] == [f"{perf.FIRST_JOB + 6}_{task}" for task in "0123"]


def test_the_benchmark_reports_its_figures(
    qapp: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "perf.json"
    assert perf.main(["--jobs", "40", "--polls", "2", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert set(result) >= FIELDS
    assert result["jobs"] == 40 and result["rows_parsed"] == 40
    assert result["squeue_calls_per_poll"] == 1, "one squeue call covers every tracked job"
    assert result["refresh_rows"] == 40 and result["baseline_rows"] == perf.BASELINE_ROWS
    printed = capsys.readouterr().out
    assert "refresh_gap_max_ms" in printed and "parse_max_ms" in printed
