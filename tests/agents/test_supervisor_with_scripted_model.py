"""Supervisor -> specialist -> tools through the real graph, with scripted (fake) models."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

from tests.agents.conftest import add_specialist, call, calls, handoff, say
from workbench.agents.events import (
    FinalAnswer,
    LoopStopped,
    ModelCalled,
    Routed,
    RunFinished,
    Token,
    ToolFinished,
    ToolStarted,
)


def test_supervisor_routes_to_sample_specialist_which_adds_with_scripted_model(app, scripted):
    runtime, model = scripted(
        [
            handoff("sample", "Add 2 and 3."),
            calls(call("sample_add", {"a": 2, "b": 3})),
            say("The sum is 5."),
            say("2 + 3 = 5."),
        ]
    )
    seen_live = []
    result = runtime.send_sync("t1", "What is 2 + 3?", on_event=seen_live.append)

    assert result.status == "done", result.error
    assert result.answer == "2 + 3 = 5."
    assert seen_live == result.events
    [recorded] = app.store.tool_calls("sample_add")
    assert recorded["arguments"] == {"a": 2, "b": 3}
    assert recorded["caller"] == "agent:sample"
    assert recorded["ok"] is True and recorded["result"] == {"total": 5.0}

    routed = [e for e in result.events if isinstance(e, Routed)]
    assert [(e.specialist, e.task) for e in routed] == [("sample", "Add 2 and 3.")]
    started = [e for e in result.events if isinstance(e, ToolStarted)]
    finished = [e for e in result.events if isinstance(e, ToolFinished)]
    assert [(e.tool, e.arguments) for e in started] == [("sample_add", {"a": 2, "b": 3})]
    assert finished[0].ok and finished[0].result == {"total": 5.0}
    assert finished[0].store_call_id == recorded["id"]
    assert "".join(e.text for e in result.events if isinstance(e, Token)).endswith("2 + 3 = 5.")
    assert [e.text for e in result.events if isinstance(e, FinalAnswer)] == ["2 + 3 = 5."]
    assert isinstance(result.events[-1], RunFinished) and result.events[-1].status == "done"

    # each agent sees only its own tools; the specialist sees its task, not the conversation
    tools_per_call = [entry["tools"] for entry in model.seen]
    assert tools_per_call == [
        ["transfer_to_sample"],
        ["sample_add"],
        ["sample_add"],
        ["transfer_to_sample"],
    ]
    specialist_input = model.seen[1]["messages"]
    assert isinstance(specialist_input[0], SystemMessage)
    assert specialist_input[0].content.startswith("You add numbers.")
    assert [m.content for m in specialist_input[1:]] == ["Add 2 and 3."]
    # the supervisor hears the report as the answer to its hand-off
    report = model.seen[3]["messages"][-1]
    assert isinstance(report, ToolMessage) and report.content == "The sum is 5."

    # accounting: one row per model call, totals on the run in the store
    assert len([e for e in result.events if isinstance(e, ModelCalled)]) == 4
    assert result.totals["model_calls"] == 4 and result.totals["input_tokens"] > 0
    [run] = app.store.runs("agent")
    assert run["status"] == "done" and run["meta"]["totals"] == result.totals
    assert len(runtime.log.calls(run_id=result.run_id)) == 4


def test_chain_of_two_specialists_with_scripted_model(app, scripted):
    add_specialist(app, "notes", ("sample_write_note",), "Writes notes")
    runtime, model = scripted(
        [
            handoff("sample", "Add 2 and 3."),
            calls(call("sample_add", {"a": 2, "b": 3})),
            say("5"),
            handoff("notes", "Write a note saying the sum is 5."),
            calls(call("sample_write_note", {"text": "the sum is 5"})),
            say("Noted."),
            say("The sum is 5 and it is noted."),
        ]
    )
    result = runtime.send_sync("chain", "Add 2 and 3 and note the result.")

    assert result.status == "done", result.error
    assert [e.specialist for e in result.events if isinstance(e, Routed)] == ["sample", "notes"]
    assert [c["caller"] for c in app.store.tool_calls()] == ["agent:sample", "agent:notes"]
    [note] = app.store.tool_calls("sample_write_note")
    assert note["arguments"] == {"text": "the sum is 5"} and note["ok"]
    assert model.seen[1]["tools"] == ["sample_add"]
    assert model.seen[4]["tools"] == ["sample_write_note"]
    assert set(model.seen[0]["tools"]) == {"transfer_to_sample", "transfer_to_notes"}
    # the second specialist starts fresh: its own prompt and task only
    assert [m.content for m in model.seen[4]["messages"][1:]] == [
        "Write a note saying the sum is 5."
    ]
    assert result.answer == "The sum is 5 and it is noted."


def test_loop_guard_stops_fourth_consecutive_route_with_scripted_model(app, scripted):
    replies = []
    for _ in range(4):
        replies += [handoff("sample", "Add 1 and 1."), say("Not sure yet.")]
    runtime, model = scripted(replies)

    result = runtime.send_sync("loop", "Add 1 and 1.")

    assert result.status == "stopped"
    assert len([e for e in result.events if isinstance(e, Routed)]) == 3
    [stop] = [e for e in result.events if isinstance(e, LoopStopped)]
    assert stop.specialist == "sample" and stop.routes == 3
    assert "3 times in a row" in result.answer
    assert model.remaining == 1  # the 4th hand-off was refused: no 4th specialist call
    assert app.store.runs("agent")[-1]["status"] == "stopped"


def test_routing_counter_resets_for_each_new_request_with_scripted_model(app, scripted):
    turn = [handoff("sample", "Add."), say("2"), say("2")]
    runtime, _ = scripted(turn * 4)
    for number in range(4):
        assert runtime.send_sync("again", f"request {number}").status == "done"


def test_supervisor_may_answer_directly_with_scripted_model(app, scripted):
    runtime, model = scripted([say("Hello, engineer.")])
    result = runtime.send_sync("hello", "Hi")
    assert result.answer == "Hello, engineer."
    assert isinstance(model.seen[0]["messages"][-1], HumanMessage)
    assert app.store.tool_calls() == []


def test_identical_repeated_tool_calls_end_the_hand_off_with_scripted_model(app, scripted):
    same = call("sample_add", {"a": 1, "b": 2})
    runtime, model = scripted(
        [
            handoff("sample", "Add 2 and 3."),
            calls(same),
            calls(call("sample_add", {"a": 1, "b": 2})),
            calls(call("sample_add", {"a": 1, "b": 2})),  # third time: not run
            say("The specialist kept repeating itself; 1 + 2 = 3."),
        ]
    )
    result = runtime.send_sync("t-repeat", "What is 2 + 3?")
    assert result.status == "done", result.error
    assert len(app.store.tool_calls("sample_add")) == 2
    report = next(m for m in model.seen[-1]["messages"] if isinstance(m, ToolMessage))
    assert "same arguments 3 times" in str(report.content)


def test_a_tool_refusing_three_times_in_a_row_ends_the_hand_off_with_scripted_model(app, scripted):
    """Different arguments each time, so not the identical-call guard: a small model once retried
    a refused call 36 times until its context was full."""
    add_specialist(app, "notes", ("sample_write_note",), "Writes notes.")

    def refused(text: str) -> dict:
        return calls(call("sample_write_note", {"text": text, "fail_after_writing": True}))

    runtime, model = scripted(
        [
            handoff("notes", "Write a note."),
            refused("one"),
            refused("two"),
            refused("three"),  # the hand-off ends here: the next reply is the supervisor's
            say("The notes tool keeps refusing."),
        ]
    )
    result = runtime.send_sync("t-refused", "Write a note.")
    assert result.status == "done", result.error
    assert len(app.store.tool_calls("sample_write_note")) == 3
    assert result.answer == "The notes tool keeps refusing."
    report = next(m for m in model.seen[-1]["messages"] if isinstance(m, ToolMessage))
    assert "sample_write_note failed 3 times in a row" in str(report.content)
    assert "refused after writing" in str(report.content)
