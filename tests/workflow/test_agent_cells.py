"""Cells played by an agent: a scripted model through the real runtime, and an unreachable
server (a harness failure, not a low score)."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.bench.runner import PlannedCell, execute_cell
from workbench_plugins.topopt.bench.suite import WorkflowSuite


def natural_task():
    suite = WorkflowSuite("beams2d")
    return suite, next(t for t in suite.tasks() if t.id == "beams2d/NATURAL/e0")


def test_scripted_agent_asks_for_clarification_and_is_scored(context, tmp_path: Path) -> None:
    script = [
        {"tool_calls": [{"name": "transfer_to_topopt", "args": {"task": "Design the beam."}}]},
        {
            "tool_calls": [
                {
                    "name": "ask_human_for_clarification",
                    "args": {"clarification_request": "Which volume fraction and rmin?"},
                }
            ],
            "usage": {"input_tokens": 400, "output_tokens": 20},
        },
        {"content": "I asked the engineer and wait for the numbers."},
        {"content": "I need the volume fraction and filter radius first."},
        {"content": "Waiting."},
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    suite, task = natural_task()
    cell = PlannedCell(suite.name, task, f"scripted:{path}", 0)
    record = execute_cell(suite, cell, context, tmp_path / "out")
    assert record["status"] == "ok", record.get("error")
    scores = record["scores"]
    assert scores["task_completion"] == 1.0, (
        record["details"]["calls"],
        record["details"]["agent"],
    )
    assert scores["abstained"] == 1.0
    assert scores["tool_use"] == 1.0 and scores["combined"] == 1.0
    assert scores["tokens_in"] >= 400 and scores["tokens_out"] >= 20
    calls = record["details"]["calls"]
    assert [c["tool"] for c in calls] == ["ask_human_for_clarification"]


def test_a_model_that_calls_nothing_scores_low_without_error(context, tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps([{"content": "Sure, a beam."}, {"content": "Done."}]))
    suite, task = natural_task()
    record = execute_cell(
        suite, PlannedCell(suite.name, task, f"scripted:{path}", 0), context, tmp_path / "out"
    )
    assert record["status"] == "ok"
    assert record["scores"]["task_completion"] == 0.0 and record["scores"]["combined"] == 0.0


def test_unreachable_model_server_is_a_harness_failure(context, tmp_path: Path) -> None:
    suite, task = natural_task()  # conftest points OLLAMA_HOST at a closed port
    record = execute_cell(
        suite, PlannedCell(suite.name, task, "ollama:qwen3:4b", 0), context, tmp_path / "out"
    )
    assert record["status"] == "error"
    assert "not reachable" in record["error"]


def test_a_looping_scripted_model_is_stopped_by_the_cell_budget(context, tmp_path: Path) -> None:
    """A model that never finishes (here: a new create_problem seed each reply, so no repeat
    guard fires) is stopped after AGENT_MAX_MODEL_CALLS model calls and scored on what it did."""
    from workbench_plugins.topopt.bench.policies import AGENT_MAX_MODEL_CALLS as BUDGET

    looping = [
        {"tool_calls": [{"name": "create_problem", "args": {"problem_type": "beams2d", "seed": i}}]}
        for i in range(2 * BUDGET)
    ]
    script = [{"tool_calls": [{"name": "transfer_to_topopt", "args": {"task": "A beam."}}]}]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script + looping))
    suite, task = natural_task()
    record = execute_cell(
        suite, PlannedCell(suite.name, task, f"scripted:{path}", 0), context, tmp_path / "out"
    )
    assert record["status"] == "ok"  # a low score, not a harness error
    agent = record["details"]["agent"]
    assert agent["status"] == "error" and f"budget of {BUDGET} model calls" in agent["error"]
    assert agent["model_calls"] == BUDGET
    # the hand-off, then one create_problem per reply; the last reply's call never ran
    assert [c["tool"] for c in record["details"]["calls"]] == ["create_problem"] * (BUDGET - 2)
    assert record["scores"]["task_completion"] == 0.0
