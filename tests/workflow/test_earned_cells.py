"""Only work done counts (workbench.bench.earned), on real cells: the two policies that cheat
score 0 on the headline through the `bench` command, and an STL changed after its export zeroes
the headline of the cell that exported it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workbench.bench.earned import CHEATS, CLAIMS_WITHOUT_WORK
from workbench.bench.runner import PlannedCell, execute_cell
from workbench.core.context import AppContext
from workbench_plugins.topopt.bench import policies, tasks
from workbench_plugins.topopt.bench.suite import WorkflowSuite


@pytest.fixture
def workflow_context(workflow_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppContext]:
    """A context on the session's home: its ground-truth cache is shared with the other tests."""
    monkeypatch.setenv("WORKBENCH_HOME", str(workflow_home))
    context = AppContext.open()
    yield context
    context.close()


def test_cheating_policies_score_zero_through_the_bench_command(
    tmp_path: Path, workflow_home: Path
) -> None:
    """`workbench --headless bench workflow-beams2d --model offtarget:... --examples 1`: every
    style, both policies, headline mean 0 in summary.json."""
    out = tmp_path / "out"
    models = [arg for model in CHEATS for arg in ("--model", model)]
    done = subprocess.run(
        [
            *(sys.executable, "-m", "workbench", "--headless", "bench", "workflow-beams2d"),
            *(*models, "--examples", "1", "--out", str(out)),
        ],
        env={**os.environ, "WORKBENCH_HOME": str(workflow_home)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    groups = json.loads((out / "summary.json").read_text())["groups"]
    styles = set(tasks.styles("beams2d"))
    for model in CHEATS:
        mine = [group for group in groups if group["model"] == model]
        assert {group["style"] for group in mine} == styles, model
        for group in mine:
            assert group["errors"] == 0, group
            assert group["mean"]["combined"] == 0.0, group
            assert group["mean"]["task_completion"] == 0.0, group
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    for record in records:
        calls = record["details"]["calls"]
        if record["model"] == CLAIMS_WITHOUT_WORK:  # no call, a confident claim
            claim = record["details"]["agent"]["answer"]
            assert calls == [] and ("completed" in claim or "asked" in claim), claim
        else:  # the reference's calls, every one refused
            assert [c["tool"] for c in calls] == record["details"]["optimal_calls"]
            assert not any(call["ok"] for call in calls)


def test_an_stl_changed_after_its_export_zeroes_the_headline(
    workflow_context: AppContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference's W-RAND cell (full marks, validate.py checks), its exported STL overwritten
    before scoring (as an agent may): the design still scores, the headline and the watertight
    term do not."""
    real_play = policies.play

    def play_then_overwrite(*args: Any, **kwargs: Any) -> Any:
        run, wall = real_play(*args, **kwargs)
        for call in run.calls:
            if call.name == "convert_design_to_stl":
                Path(call.result["stl_path"]).write_text("solid nothing\nendsolid nothing\n")
        return run, wall

    suite = WorkflowSuite("beams2d")
    task = next(t for t in suite.tasks() if t.id == "beams2d/W-RAND/e0")
    cell = PlannedCell(suite.name, task, "reference", 0)
    monkeypatch.setattr(policies, "play", play_then_overwrite)
    record = execute_cell(suite, cell, workflow_context, tmp_path / "tampered")
    assert record["status"] == "ok", record.get("error")
    scores = record["scores"]
    assert scores["combined"] == 0.0 and scores["task_completion"] == 0.0
    assert scores["watertight"] == 0.0 and scores["iou"] == pytest.approx(1.0)
    [unbound] = record["details"]["unbound"]
    assert "export_0.stl" in unbound and "expected sha256" in unbound
