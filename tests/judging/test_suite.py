"""The `engjudge` suite with scripted generator and judge models: the real CLI end to end (the
per-subject and per-stage tables), a judge failure recorded as such, and `--judge` in the plan."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.judging.scripts import engjudge_replies, single_pass_reply, write_script
from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.cell_result import CellResult
from workbench.bench.results import read_cells
from workbench.bench.runner import BenchError, PlannedCell, plan, run_bench
from workbench_plugins.judging.bench.policies import reference_solution
from workbench_plugins.judging.bench.suite import EngJudgeSuite
from workbench_plugins.judging.problems.registry import problem

PROBLEM = "beam_point_load-s1"


def bench_cli(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", "--headless", "bench", *args],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_scripted_generator_and_judge_run_end_to_end_through_the_cli(tmp_path: Path) -> None:
    generator = write_script(
        tmp_path / "generator.json", [{"content": reference_solution(problem(PROBLEM))}]
    )
    # ES loses 4 points (moderate); coverage 9: S_final = mean(10,10,10,6,8,7,9,8) * 0.9 = 7.65
    replies = [
        *engjudge_replies(es_errors=(("moderate", "unit slip"),), coverage=9),
        single_pass_reply(9),
    ]
    judge = write_script(tmp_path / "judge.json", replies)
    out = tmp_path / "results"
    done = bench_cli(
        "engjudge", "--model", generator, "--judge", judge, "--tasks", PROBLEM, "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    [record] = read_cells(out).values()
    assert record["status"] == "ok", record.get("error")
    assert record["judge"] == judge and record["key"].endswith(f"|judge={judge}")
    scores = record["scores"]
    assert scores["raw_ES"] == 6.0 and scores["dep_LR"] == pytest.approx(8.0)
    assert scores["final"] == pytest.approx(7.65)
    assert scores["single_pass"] == pytest.approx(9.0) and scores["judge_failed"] == 0.0
    assert scores["judge_calls"] == 12.0 and scores["judge_tokens_in"] == 12 * 300.0
    solution = next((out / "cells").glob("*/solution.md")).read_bytes()
    assert record["details"]["solution"]["sha256"] == hashlib.sha256(solution).hexdigest()
    assert len(record["details"]["bindings"]) == 2 and "unbound" not in record["details"]
    report = (out / "engjudge-report.md").read_text()
    assert "### Per subject (EngJudge and the baselines)" in report
    assert "| mechanics of materials | 1 | 0 | 7.65 | 8.50 |" in report
    assert "| ES | Equation Selection | 6.00 | 6.00 | 0.00 |" in report
    assert "| LR | Logical Reasoning | 10.00 | 8.00 | 2.00 |" in report
    assert "| judge, total | 12 | 3,600 | 480 |" in report
    assert "rule-based" not in report.split("## generator", 1)[1]  # a model judged here
    assert (out / "engjudge-report.png").read_bytes()[:4] == b"\x89PNG"


def test_scripted_judge_malformed_twice_is_a_judge_failure_not_a_score(
    context: Any, tmp_path: Path
) -> None:
    malformed = {"content": "The solution looks fine to me."}  # no tool call: no verdict
    replies = [malformed, malformed, *engjudge_replies()[1:], single_pass_reply(8)]
    judge = write_script(tmp_path / "judge.json", replies)
    suite = EngJudgeSuite(seeds=(1,), images="no")
    [task] = [task for task in suite.tasks() if task.id == PROBLEM]
    cell = PlannedCell(suite.name, task, "reference", 0, judge=judge)
    out = tmp_path / "results"
    outcome = run_bench(context, {suite.name: suite}, [cell], out)
    assert not outcome.errors
    record = read_cells(out)[cell.key]
    scores, details = record["scores"], record["details"]
    assert scores["judge_failed"] == 1.0 and "final" not in scores and "s_base" not in scores
    assert [(f["kind"], f["stage"]) for f in details["judge_failures"]] == [("stage", "PC")]
    retried = [call for call in details["judge_call_log"] if call["retried"]]
    assert [(c["stage"], c["attempts"], c["ok"]) for c in retried] == [("PC", 2, False)]
    assert scores["single_pass"] == pytest.approx(8.0)  # the other grading still scored
    summary = json.loads((out / "summary.json").read_text())["groups"]
    assert "final" not in summary[0]["mean"]
    report = (out / "engjudge-report.md").read_text()
    assert "| **all** | 1 | 1 | - | - | - | 8.00 |" in report


class _UnjudgedSuite(Suite):
    name = "plain"

    def tasks(self) -> list[BenchTask]:
        return [BenchTask("t0")]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        return CellResult({})


def test_judge_flag_reaches_the_cells_of_judging_suites_and_their_keys() -> None:
    suites: dict[str, Suite] = {"engjudge": EngJudgeSuite(seeds=(1,)), "plain": _UnjudgedSuite()}
    models = ["reference", "scripted:generator.json"]
    defaults = plan(suites, ["engjudge", "plain"], models, [0], patterns=[PROBLEM, "t0"])
    judges = {(c.suite, c.model): c.judge for c in defaults}
    assert judges == {
        ("engjudge", "reference"): "rubric",
        ("engjudge", "scripted:generator.json"): "scripted:generator.json",
        ("plain", "reference"): "",
        ("plain", "scripted:generator.json"): "",
    }
    asked = plan(suites, ["engjudge"], models, [0], patterns=[PROBLEM], judge="ollama:qwen3:8b")
    assert {c.judge for c in asked} == {"ollama:qwen3:8b"}
    assert all(c.key.endswith("|judge=ollama:qwen3:8b") for c in asked)
    assert {c.key for c in asked}.isdisjoint(c.key for c in defaults)  # another judge: new cells
    with pytest.raises(BenchError, match="none of the planned suites"):
        plan(suites, ["plain"], models, [0], judge="rubric")
