"""`workbench --headless bench`: cells, atomic results, summary, resume after a kill, failures."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.bench.results import read_cells
from workbench.core.context import AppContext


def bench(*args: str, env: dict[str, str] | None = None, **popen: object) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", "--headless", "bench", *args],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


def scores(folder: Path) -> dict[str, dict]:
    return {key: record["scores"] for key, record in read_cells(folder).items()}


def computed(folder: Path) -> list[str]:
    log = folder / "computed.log"
    return log.read_text().splitlines() if log.exists() else []


def test_killed_run_resumes_with_only_missing_cells(sample_plugins, tmp_path: Path) -> None:
    out, reference = tmp_path / "interrupted", tmp_path / "uninterrupted"
    args = ["sample", "--seeds", "0", "1", "--model", "reference", "--model", "scripted:x"]
    slow = bench(*args, "--out", str(out), env={"WB_SAMPLE_SLEEP": "0.3"})
    deadline = time.monotonic() + 120
    while len(read_cells(out)) < 4:
        assert slow.poll() is None and time.monotonic() < deadline, "bench ended too early"
        time.sleep(0.05)
    slow.send_signal(signal.SIGKILL)
    slow.wait()
    done_before = set(read_cells(out))
    assert 4 <= len(done_before) < 24
    lines = out.joinpath("results.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # whole lines only

    already = len(computed(out))
    code, _, err = finish(bench(*args, "--out", str(out)))
    assert code == 0, err
    rerun = {line.replace("|", "|", 1) for line in computed(out)[already:]}
    planned = {
        f"sample|t{i}|{m}|{s}"
        for i in range(6)
        for m in ("reference", "scripted:x")
        for s in (0, 1)
    }
    missing = {key.split("|", 1)[1] for key in planned - done_before}
    assert rerun == missing
    assert f"{len(done_before)} already done, {len(missing)} computed" in err

    code, _, err = finish(bench(*args, "--out", str(reference), "--jobs", "2"))
    assert code == 0, err
    assert scores(out) == scores(reference) and len(scores(out)) == 24
    summary = json.loads((out / "summary.json").read_text())["groups"]
    assert summary == json.loads((reference / "summary.json").read_text())["groups"]
    assert {(g["problem"], g["model"], g["cells"]) for g in summary} == {
        (p, m, 6) for p in ("p0", "p1") for m in ("reference", "scripted:x")
    }
    third = len(computed(out))
    code, _, err = finish(bench(*args, "--out", str(out)))
    assert code == 0 and len(computed(out)) == third and "24 already done, 0 computed" in err


def test_summary_means_per_group(sample_plugins, tmp_path: Path) -> None:
    code, _, err = finish(bench("sample", "--model", "reference", "--out", str(tmp_path)))
    assert code == 0, err
    cells = read_cells(tmp_path)
    [group] = [
        g
        for g in json.loads((tmp_path / "summary.json").read_text())["groups"]
        if g["problem"] == "p0"
    ]
    p0 = [c["scores"]["score"] for c in cells.values() if c["problem"] == "p0"]
    assert group["cells"] == 3 and group["mean"]["score"] == pytest.approx(sum(p0) / 3)
    assert set(group) >= {"suite", "problem", "style", "condition", "model", "mean"}
    assert (tmp_path / "sample-report.txt").read_text() == "6 cells\n"  # the suite's report hook
    assert f"report: {tmp_path / 'sample-report.txt'}" in err


def test_harness_failure_exits_nonzero_and_is_retried(sample_plugins, tmp_path: Path) -> None:
    code, _, err = finish(bench("sample_faulty", "--model", "reference", "--out", str(tmp_path)))
    assert code == 1 and "evaluator could not start" in err
    cells = read_cells(tmp_path)
    assert cells["sample_faulty|explodes|reference|0"]["status"] == "error"
    assert cells["sample_faulty|fine|reference|0"]["status"] == "ok"
    code, _, err = finish(bench("sample_faulty", "--model", "reference", "--out", str(tmp_path)))
    assert code == 1 and "1 already done, 1 computed" in err  # the failed cell is tried again
    app = AppContext.open()
    try:
        recorded = app.store.bench_cells("sample_faulty")
        assert [c["status"] for c in recorded].count("error") == 2
        assert [run["status"] for run in app.store.runs("bench")] == ["errors", "errors"]
    finally:
        app.close()


def test_default_selection_list_and_unknown_suite(sample_plugins, tmp_path: Path) -> None:
    code, _, err = finish(bench("--model", "reference", "--out", str(tmp_path)))
    assert code == 0, err
    suites = {record["suite"] for record in read_cells(tmp_path).values()}
    assert {"sample", "sample_faulty", "spine"} <= suites  # every installed suite's smoke cells
    assert {k for k in read_cells(tmp_path) if k.startswith("sample|")} == {"sample|t0|reference|0"}
    code, out, _ = finish(bench("--list"))
    assert code == 0 and "sample_faulty" in out and "spine" in out
    code, _, err = finish(bench("nope", "--out", str(tmp_path)))
    assert code == 2 and "Unknown suite(s): nope" in err


def test_without_model_it_says_which_default_it_uses(tmp_path: Path) -> None:
    code, _, err = finish(bench("spine", "--examples", "1", "--out", str(tmp_path)))
    assert code == 0, err
    assert "no Ollama server answers at http://127.0.0.1:9" in err
    [record] = read_cells(tmp_path).values()
    assert record["model"] in ("llamacpp:embedded", "reference")
    assert f"model {record['model']}:" in err


def test_suites_of_one_report_group_write_one_report_over_all_their_cells(tmp_path: Path) -> None:
    from workbench.bench.runner import BenchOutcome, _write_reports
    from workbench.bench.suite import Suite

    calls: list[tuple[str, int]] = []

    class Grouped(Suite):
        report_group = "shared"

        def __init__(self, name: str) -> None:
            self.name = name

        def tasks(self):  # pragma: no cover - not planned here
            return []

        def run(self, task, model, seed, cell):  # pragma: no cover
            return {}

        def report(self, folder: Path, cells: list[dict]) -> Path:
            calls.append((self.name, len(cells)))
            return folder / f"{self.name}.html"

    class Alone(Grouped):
        report_group = ""

    suites = {name: Grouped(name) for name in ("g-b", "g-a")} | {"solo": Alone("solo")}
    finished = [{"suite": name} for name in ("g-a", "g-b", "g-b", "solo")]
    outcome = BenchOutcome(tmp_path, 4, 0, 4)
    _write_reports(suites, finished, tmp_path, outcome)
    assert sorted(calls) == [("g-a", 3), ("solo", 1)]
    assert sorted(p.name for p in outcome.reports) == ["g-a.html", "solo.html"]
