"""rag-beams2d earns its score (issue 27), on real cells: the two policies that cheat score 0
through the `bench` command in every condition, and the score is bound to the design it read (a
stored design changed after the run, or a design the store never held, zeroes rag_accuracy)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from workbench.bench.earned import CHEATS, CLAIMS_WITHOUT_WORK, FAILS_EVERY_CALL, CellResult
from workbench.bench.tool_calls import ToolCall
from workbench_plugins.retrieval.bench.rag import conditions, policies, scoring
from workbench_plugins.retrieval.bench.rag.prompts import CONDITIONS, PROMPTS, prompt
from workbench_plugins.retrieval.bench.rag.suite import NAME, RagSuite, design_bindings

pytestmark = pytest.mark.slow


def test_cheating_policies_score_zero_through_the_bench_command(
    tmp_path: Path, workbench_home: Path
) -> None:
    """`workbench --headless bench rag-beams2d --model offtarget:... --examples 1`: all twelve
    tasks, both policies, rag_accuracy mean 0 in summary.json and in the report."""
    out = tmp_path / "out"
    models = [arg for model in CHEATS for arg in ("--model", model)]
    done = subprocess.run(
        [
            *(sys.executable, "-m", "workbench", "--headless", "bench", NAME),
            *(*models, "--examples", "1", "--out", str(out)),
        ],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    groups = json.loads((out / "summary.json").read_text())["groups"]
    tasks = {(item.id, condition) for item in PROMPTS for condition in CONDITIONS}
    for model in CHEATS:
        mine = [group for group in groups if group["model"] == model]
        assert {(group["style"], group["condition"]) for group in mine} == tasks, model
        for group in mine:
            assert group["errors"] == 0, group
            assert group["mean"]["rag_accuracy"] == 0.0, group
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    refused = [r for r in records if r["model"] == FAILS_EVERY_CALL]
    claimed = [r for r in records if r["model"] == CLAIMS_WITHOUT_WORK]
    # it did make the reference's calls (searches where offered, then the design), each refused
    p3 = next(r for r in refused if r["task"] == "P3/rag")
    tools = [call["tool"] for call in p3["details"]["calls"]]
    assert tools == ["search_documents", "search_documents", "optimize_design"]
    assert not any(call["ok"] for r in refused for call in r["details"]["calls"])
    # and the claim states the documents' values, with no call made
    p1 = next(r for r in claimed if r["task"] == "P1/rag")
    assert p1["details"]["calls"] == []
    assert "volfrac = 0.58" in p1["details"]["agent"]["answer"]
    assert (out / "rag-beams2d.html").is_file()  # the report was written by the run


def test_a_stored_design_changed_after_the_run_zeroes_the_score(
    context: Any, tmp_path: Path
) -> None:
    """The reference on P0 with RAG on: bound to the design it stored; the same calls scored
    again once that file changed score 0 on the headline."""
    item = prompt("P0")
    cell = context.for_workspace(tmp_path / "cell")
    try:
        conditions.prepare(cell, "rag")
        run = policies.play_direct("reference", item, cell, 0)
        scores = scoring.score(run.calls, item.targets)
        bindings, records = design_bindings(cell, run.calls, item.targets)
        assert scores["rag_accuracy"] == 1.0
        assert len(bindings) == 2 and all(b.holds for b in bindings)  # sha in store, file
        assert records[0]["call_index"] == len(run.calls) - 1  # the one optimisation
        gated = CellResult(scores, {}, bindings).gated(RagSuite.headline)
        assert gated.scores["rag_accuracy"] == 1.0

        stored = cell.store.artifacts("topopt.design")[-1]
        stored.path.write_bytes(stored.path.read_bytes() + b"\0")  # changed after the run
        bindings, _ = design_bindings(cell, run.calls, item.targets)
        gated = CellResult(scores, {}, bindings).gated(RagSuite.headline)
        assert gated.scores["rag_accuracy"] == 0.0
        assert any("stored file" in line for line in gated.details["unbound"])
        assert gated.scores["param_accuracy"] == 1.0  # only the headline is zeroed
    finally:
        cell.close()


def test_a_design_the_store_never_held_binds_to_nothing(context: Any, tmp_path: Path) -> None:
    """An optimize_design result that names a design no call stored (a fabricated result):
    the score it would earn is zeroed."""
    cell = context.for_workspace(tmp_path / "cell")
    try:
        made_up = {"design_sha256": "ab" * 32, "design_artifact_path": str(tmp_path / "x.npy")}
        calls = [
            ToolCall("search_documents", {"query": "house default"}, True, {"passages": []}),
            ToolCall("optimize_design", {"problem_config": {"volfrac": 0.46}}, True, made_up),
        ]
        bindings, records = design_bindings(cell, calls, {"volfrac": 0.46})
        gated = CellResult({"rag_accuracy": 1.0}, {}, bindings).gated(RagSuite.headline)
        assert gated.scores["rag_accuracy"] == 0.0
        assert records == [
            {
                "call_index": 1,
                "arguments": {"problem_config": {"volfrac": 0.46}},
                "design_sha256": "ab" * 32,
                "artifact_id": None,
                "artifact_sha256": None,
            }
        ]
    finally:
        cell.close()
