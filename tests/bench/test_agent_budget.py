"""Agent budgets: model calls, tokens and wall clock end a run between steps, and a bench cell
that spends its budget is scored on what it did (not a harness error)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tests.agents.conftest import call, calls, handoff, say
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.bench import AgentBudget
from workbench.bench.runner import PlannedCell, execute_cell
from workbench.core.context import AppContext
from workbench_plugins.topopt.bench.suite import WorkflowSuite

USAGE = {"input_tokens": 1000, "output_tokens": 10}


def billed(reply: dict[str, Any]) -> dict[str, Any]:
    return {**reply, "usage": USAGE}


def adding_script() -> list[dict[str, Any]]:
    add = calls(call("sample_add", {"a": 2, "b": 3}))
    return [billed(r) for r in (handoff("sample", "Add."), add, add, add, say("5"), say("5"))]


def sample_runtime(context: AppContext, **limits: Any) -> tuple[AgentRuntime, ScriptedChatModel]:
    context.plugins.plugins = {"sample": context.plugins.plugins["sample"]}
    model = ScriptedChatModel(replies=adding_script())
    return AgentRuntime(context, model, model_name="scripted:test", **limits), model


def test_a_token_budget_stops_the_run_between_model_calls(sample_plugins, context) -> None:
    roomy, _ = sample_runtime(context, max_tokens=100_000, max_seconds=600)
    try:
        assert roomy.send_sync("roomy", "Add.").status == "done"
    finally:
        roomy.close()
    tight, model = sample_runtime(context, max_tokens=2_500)
    try:
        result = tight.send_sync("tight", "Add.")
    finally:
        tight.close()
    assert result.status == "error" and "budget of 2500 tokens" in result.error
    assert model.position == 3  # the third reply crossed 2,500 tokens: no fourth call


def test_a_time_budget_stops_the_run_after_the_step_under_way(sample_plugins, context) -> None:
    runtime, model = sample_runtime(context, max_seconds=1e-6)
    try:
        result = runtime.send_sync("late", "Add.")
    finally:
        runtime.close()
    assert result.status == "error" and "budget of 1e-06 s" in result.error
    assert model.position == 1  # the first model call finished, no second one started


def test_a_cell_that_spends_its_budget_is_scored_on_what_it_did(context, tmp_path: Path) -> None:
    details = calls(call("get_problem_details", {"problem_type": "beams2d"}))
    script = [handoff("topopt", "Optimise and export."), *[details] * 8, say("Done.")]
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    suite = WorkflowSuite("beams2d")
    task = next(t for t in suite.tasks() if t.id == "beams2d/W-RAND/e0")
    budget = AgentBudget(model_calls=3, tokens=10**6, seconds=600)
    cell = PlannedCell(suite.name, task, f"scripted:{path}", 0, budget)
    record = execute_cell(suite, cell, context, tmp_path / "out")
    assert record["status"] == "ok", record.get("error")
    assert record["key"].endswith(f"|{budget.tag}") and record["budget"] == asdict(budget)
    agent = record["details"]["agent"]
    assert agent["model_calls"] == 3 and "budget of 3 model calls" in agent["error"]
    # the hand-off and one details call ran; the third reply's call was not started
    assert [c["tool"] for c in record["details"]["calls"]] == ["get_problem_details"]
    assert record["scores"]["task_completion"] == 0.0


def test_the_embedded_model_stops_a_reply_at_the_runs_deadline_with_a_fake_llama_class() -> None:
    """One reply of SmolLM2 on a busy machine can outlast the whole smoke budget: llama.cpp's
    generation loop asks the stopping criteria after every token."""
    from workbench.agents.deadline import Deadline
    from workbench.agents.llamacpp import _bounded

    class FakeLlama:
        def create_completion(
            self, prompt: str, max_tokens: int = 16, stopping_criteria: Any = None
        ) -> int:
            for generated in range(max_tokens):
                if stopping_criteria is not None and stopping_criteria([], []):
                    return generated
            return max_tokens

    llama = _bounded(FakeLlama)()
    assert llama.create_completion("p", max_tokens=100) == 100  # no run deadline: no limit
    with Deadline(600):
        assert llama.create_completion("p", max_tokens=100) == 100
    with Deadline(0):
        assert llama.create_completion("p", max_tokens=100) == 0
