"""Fuzzed model outputs never crash a run, and each one leaves a record."""

from __future__ import annotations

import random

import pytest
from langchain_core.messages import ToolMessage

from tests.agents.conftest import call, calls, handoff, say
from workbench.agents.events import Malformed, RunFinished

GOOD = calls(call("sample_add", {"a": 2, "b": 3}))

BAD_SPECIALIST_REPLIES = {
    "invalid_json": (calls(call("sample_add", '{"a": 2, "b": ')), "invalid_arguments"),
    "wrong_types": (calls(call("sample_add", {"a": "two", "b": [3]})), "invalid_arguments"),
    "missing_fields": (calls(call("sample_add", {"a": 2})), "invalid_arguments"),
    "unknown_tool": (calls(call("sample_multiply", {"a": 2, "b": 3})), "unknown_tool"),
    "other_specialists_tool": (calls(call("sample_actuate", {})), "unknown_tool"),
    "json_not_an_object": (calls(call("sample_add", "[2, 3]")), "invalid_arguments"),
}


@pytest.mark.parametrize("case", sorted(BAD_SPECIALIST_REPLIES))
def test_malformed_tool_call_is_answered_and_recorded_with_scripted_model(app, scripted, case):
    bad, kind = BAD_SPECIALIST_REPLIES[case]
    runtime, model = scripted([handoff("sample", "Add 2 and 3."), bad, GOOD, say("5"), say("5")])

    result = runtime.send_sync("fuzz", "Add 2 and 3.")

    assert result.status == "done", result.error
    refused, ran = app.store.tool_calls()
    assert refused["ok"] is False and refused["error"]["kind"] == kind
    assert refused["caller"] == "agent:sample"
    assert ran["tool"] == "sample_add" and ran["ok"] and ran["arguments"] == {"a": 2, "b": 3}
    told = model.seen[2]["messages"][-1]  # the retry saw why its call was refused
    assert isinstance(told, ToolMessage) and told.status == "error"
    assert told.content == refused_explanation(refused)
    actuated = app.store.tool_calls("sample_actuate")
    assert all(not c["ok"] for c in actuated)  # never run by a specialist that lacks it


def refused_explanation(recorded: dict) -> str:
    from workbench.core.tools import ToolError

    return ToolError.model_validate(recorded["error"]).explain()


def test_empty_message_is_retried_and_recorded_with_scripted_model(app, scripted):
    runtime, model = scripted([handoff("sample", "Add."), say(""), GOOD, say("5"), say("5")])
    result = runtime.send_sync("empty", "Add.")
    assert result.status == "done", result.error
    [malformed] = [e for e in result.events if isinstance(e, Malformed)]
    assert malformed.problem == "empty_message" and malformed.agent == "sample"
    problems = [c["problem"] for c in runtime.log.calls(run_id=result.run_id)]
    assert problems == ["", "empty_message", "", "", ""]
    assert "empty" in model.seen[2]["messages"][-1].content  # told why
    assert result.totals["malformed_replies"] == 1


def test_retry_budget_ends_the_specialist_and_supervisor_still_answers_with_scripted_model(
    app, scripted
):
    bad = calls(call("sample_add", "{not json"))
    runtime, model = scripted(
        [handoff("sample", "Add."), bad, bad, bad, say("The specialist failed, sorry.")]
    )
    result = runtime.send_sync("budget", "Add.")

    assert result.status == "done", result.error
    assert result.answer == "The specialist failed, sorry."
    assert len(app.store.tool_calls()) == 3
    report = model.seen[-1]["messages"][-1]
    assert isinstance(report, ToolMessage) and "gave up" in report.content
    assert model.remaining == 0


@pytest.mark.parametrize(
    "bad",
    [
        calls(call("transfer_to_nobody", {"task": "x"})),
        calls(call("transfer_to_sample", {})),
        calls(call("transfer_to_sample", {"task": 42})),
        calls(call("transfer_to_sample", '{"task": ')),
        calls(call("sample_add", {"a": 1, "b": 2})),  # the supervisor has no tools but hand-offs
        say(""),
    ],
    ids=["unknown", "missing_task", "wrong_type", "invalid_json", "not_a_handoff", "empty"],
)
def test_malformed_supervisor_reply_is_retried_with_scripted_model(app, scripted, bad):
    runtime, _ = scripted([bad, handoff("sample", "Add."), GOOD, say("5"), say("5")])
    result = runtime.send_sync("sup", "Add.")
    assert result.status == "done", result.error
    assert result.answer == "5"
    ran = app.store.tool_calls("sample_add")
    assert ran[-1]["ok"] and ran[-1]["caller"] == "agent:sample"
    if bad.get("tool_calls"):
        [refused] = [c for c in app.store.tool_calls() if c["caller"] == "agent:supervisor"]
        assert refused["ok"] is False
    else:
        assert runtime.log.calls(run_id=result.run_id)[0]["problem"] == "empty_message"


def test_supervisor_gives_up_after_three_malformed_replies_with_scripted_model(app, scripted):
    runtime, _ = scripted([say("")] * 3)
    result = runtime.send_sync("giveup", "Add.")
    assert result.status == "stopped"
    assert "could not get a usable reply" in result.answer


GARBAGE = [
    say(""),
    calls(call("sample_add", '{"a": ')),
    calls(call("sample_add", {"a": "x", "b": None})),
    calls(call("sample_add", {})),
    calls(call("", {})),
    calls(call("no_such_tool", {"q": 1})),
    calls(call("transfer_to_sample", {"task": ""})),
    calls(call("transfer_to_sample", {"task": "Add 1 and 2."})),
    calls(call("ask_human_for_clarification", {"question": "?"})),
    calls(call("sample_add", {"a": 1, "b": 2}), call("sample_add", "]]")),
    say("An answer."),
]


@pytest.mark.parametrize("seed", range(12))
def test_random_garbage_never_crashes_a_run_with_scripted_model(app, scripted, seed):
    generator = random.Random(seed)
    replies = [generator.choice(GARBAGE) for _ in range(40)] + [say("Done.")] * 40
    runtime, _ = scripted(replies)
    result = runtime.send_sync(f"garbage-{seed}", "Add 1 and 2.")
    assert result.status in ("done", "stopped"), result.error
    assert isinstance(result.events[-1], RunFinished)
    for recorded in app.store.tool_calls():
        assert recorded["ok"] is not None  # every call finished and was recorded
