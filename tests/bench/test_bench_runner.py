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

from workbench.bench.cell_result import CellResult
from workbench.bench.results import bench_workspace, read_cells
from workbench.bench.runner import SMOKE_AGENT_BUDGET
from workbench.core.store import Store


def bench(*args: str, env: dict[str, str] | None = None, **popen: object) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "workbench", "--headless", "bench", *args],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, with its job workers
        **popen,
    )


def finish(process: subprocess.Popen, timeout: float = 300) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # never leave a bench or its workers running
        raise
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
    code, out, err = finish(bench("sample", "--model", "reference", "--out", str(tmp_path)))
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
    # the terminal: one line for the suite (cells, errors, headline, report), then the index
    [line] = [row for row in out.splitlines() if row.startswith("│ sample ")]
    assert "│ 6 " in line and "score " in line and "sample-report.txt" in line
    assert f"Everything in one page: {tmp_path / 'index.html'}" in err


def test_harness_failure_exits_nonzero_and_is_retried(sample_plugins, tmp_path: Path) -> None:
    code, _, err = finish(bench("sample_faulty", "--model", "reference", "--out", str(tmp_path)))
    assert code == 1 and "evaluator could not start" in err
    cells = read_cells(tmp_path)
    assert cells["sample_faulty|explodes|reference|0"]["status"] == "error"
    assert cells["sample_faulty|fine|reference|0"]["status"] == "ok"
    code, _, err = finish(bench("sample_faulty", "--model", "reference", "--out", str(tmp_path)))
    assert code == 1 and "1 already done, 1 computed" in err  # the failed cell is tried again
    records = Store(bench_workspace(tmp_path))  # the run records stay with the results
    try:
        recorded = records.bench_cells("sample_faulty")
        assert [c["status"] for c in recorded].count("error") == 2
        assert [run["status"] for run in records.runs("bench")] == ["errors", "errors"]
    finally:
        records.close()


# every installed suite's smoke cells, with real optimisations: under a minute on a quiet
# machine, but one Photonics2D cell took 245 s beside other engineers' thread-spinning processes
@pytest.mark.timeout(900)
def test_default_selection_list_and_unknown_suite(sample_plugins, tmp_path: Path) -> None:
    script = tmp_path / "answers.json"
    script.write_text(json.dumps([{"content": "Done."}] * 3))
    # as in the README, without --out: bench-results/ where the command runs
    out = tmp_path / "bench-results"
    code, _, err = finish(
        bench("--model", "reference", "--model", f"scripted:{script}", cwd=tmp_path), 800
    )
    assert code == 0, err
    cells = read_cells(out)
    suites = {record["suite"] for record in cells.values()}
    assert {"sample", "sample_faulty", "spine"} <= suites  # every installed suite's smoke cells
    assert {k for k in cells if k.startswith("sample|")} == {"sample|t0|reference|0"}
    # the scripted model plays one agent cell, under the smoke budget, and the last line says
    # how to measure a model for real
    [agent] = [c for c in cells.values() if c["model"] != "reference"]
    assert agent["key"].endswith(SMOKE_AGENT_BUDGET.tag) and agent["status"] == "ok"
    assert (
        err.rstrip()
        .splitlines()[-1]
        .endswith(
            f"run a whole suite without budget: workbench --headless bench {agent['suite']} "
            "--model ollama:qwen3:4b"
        )
    )
    code, out_text, _ = finish(bench("--list"))
    assert code == 0 and "sample_faulty" in out_text and "spine" in out_text
    code, _, err = finish(bench("nope", "--out", str(tmp_path)))
    assert code == 2 and "Unknown suite(s): nope" in err
    code, _, err = finish(bench("sample", "--tasks", "t0,nope*", "--out", str(tmp_path)))
    assert code == 2 and "--tasks nope* matches no task id or style of sample" in err


def test_without_model_it_says_which_default_it_uses(tmp_path: Path) -> None:
    code, _, err = finish(bench("spine", "--tasks", "event_order", "--out", str(tmp_path)))
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
            return CellResult({})

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
