"""Clarifications and confirmations are LangGraph interrupts, answered by a person or a policy."""

from __future__ import annotations

import asyncio

from langchain_core.messages import ToolMessage

from tests.agents.conftest import add_specialist, call, calls, handoff, say
from workbench.agents import HeadlessPolicy
from workbench.agents.events import InterruptRequested, ToolFinished


def test_clarification_interrupt_is_resumed_with_the_answer_with_scripted_model(app, scripted):
    add_specialist(app, "asker", ("ask_human_for_clarification", "sample_add"))
    runtime, model = scripted(
        [
            handoff("asker", "Add the two numbers the engineer means."),
            calls(call("ask_human_for_clarification", {"clarification_request": "Which numbers?"})),
            calls(call("sample_add", {"a": 4, "b": 5})),
            say("4 + 5 = 9"),
            say("It is 9."),
        ]
    )
    first = runtime.send_sync("ask", "Add my numbers.")

    assert first.status == "interrupted"
    [request] = first.interrupts
    assert request.kind == "clarification" and request.question == "Which numbers?"
    assert request.agent == "asker"
    assert [e for e in first.events if isinstance(e, InterruptRequested)] == [request]
    assert app.store.tool_calls() == []  # nothing ran while waiting
    assert [r.interrupt_id for r in asyncio.run(runtime.pending("ask"))] == [request.interrupt_id]

    second = runtime.resume_sync("ask", "4 and 5")

    assert second.status == "done", second.error
    assert second.answer == "It is 9."
    answer = model.seen[2]["messages"][-1]
    assert isinstance(answer, ToolMessage) and answer.content == "4 and 5"
    [added] = app.store.tool_calls("sample_add")
    assert added["arguments"] == {"a": 4, "b": 5}
    assert asyncio.run(runtime.pending("ask")) == []


def test_confirmation_denied_by_headless_policy_is_recorded_with_scripted_model(app, scripted):
    add_specialist(app, "mover", ("sample_actuate",))
    policy = HeadlessPolicy()  # denies by default
    runtime, model = scripted(
        [
            handoff("mover", "Move the motor."),
            calls(call("sample_actuate", {})),
            say("The engineer declined; I did not move the motor."),
            say("The motor was not moved: you declined."),
        ],
        policy=policy,
    )
    result = runtime.send_sync("move", "Move the motor.")

    assert result.status == "done", result.error
    [request] = [e for e in result.events if isinstance(e, InterruptRequested)]
    assert request.kind == "confirmation" and request.tool == "sample_actuate"
    [decision] = policy.denied
    assert decision["tool"] == "sample_actuate" and policy.approved == []
    [recorded] = app.store.tool_calls("sample_actuate")
    assert recorded["ok"] is False and recorded["caller"] == "agent:mover"
    assert recorded["error"]["kind"] == "confirmation_required"
    told = model.seen[2]["messages"][-1]
    assert isinstance(told, ToolMessage) and "declined" in told.content
    [finished] = [e for e in result.events if isinstance(e, ToolFinished)]
    assert not finished.ok and finished.error_kind == "confirmation_required"


def test_confirmation_approved_by_policy_runs_the_tool_with_scripted_model(app, scripted):
    add_specialist(app, "mover", ("sample_actuate",))
    policy = HeadlessPolicy(approve={"sample_actuate"})
    runtime, _ = scripted(
        [handoff("mover", "Move."), calls(call("sample_actuate")), say("Moved."), say("Done.")],
        policy=policy,
    )
    assert runtime.send_sync("move", "Move.").status == "done"
    [recorded] = app.store.tool_calls("sample_actuate")
    assert recorded["ok"] and recorded["result"] == {"moved": True}
    assert [d["tool"] for d in policy.approved] == ["sample_actuate"]


def test_confirmation_answered_by_a_person_after_reopening_with_scripted_model(app, scripted):
    add_specialist(app, "mover", ("sample_actuate",))
    replies = [handoff("mover", "Move."), calls(call("sample_actuate")), say("Moved."), say("Ok.")]
    first_runtime, _ = scripted(replies[:2])
    assert first_runtime.send_sync("gui", "Move.").status == "interrupted"
    assert app.store.tool_calls() == []

    # the chat panel may have been closed meanwhile: a new runtime finds the question and answers
    runtime, _ = scripted(replies[2:])
    [request] = asyncio.run(runtime.pending("gui"))
    assert request.kind == "confirmation"
    result = runtime.resume_sync("gui", {"approved": True})
    assert result.status == "done", result.error
    [recorded] = app.store.tool_calls("sample_actuate")
    assert recorded["ok"] is True


def test_two_confirmations_in_one_reply_are_asked_before_anything_runs_with_scripted_model(
    app, scripted
):
    add_specialist(app, "mover", ("sample_actuate", "sample_add"))
    runtime, _ = scripted(
        [
            handoff("mover", "Move twice."),
            calls(
                call("sample_add", {"a": 1, "b": 1}), call("sample_actuate"), call("sample_actuate")
            ),
            say("Moved once."),
            say("Moved once."),
        ]
    )
    first = runtime.send_sync("two", "Move twice.")
    assert first.status == "interrupted" and app.store.tool_calls() == []
    second = runtime.resume_sync("two", True)
    assert second.status == "interrupted" and app.store.tool_calls() == []
    third = runtime.resume_sync("two", False)
    assert third.status == "done", third.error
    recorded = app.store.tool_calls()
    assert [(c["tool"], c["ok"]) for c in recorded] == [
        ("sample_add", True),
        ("sample_actuate", True),
        ("sample_actuate", False),
    ]
