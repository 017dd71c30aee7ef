"""The generic turn loop (workbench.agents.turn_loop) with a scripted model and the sample tools:
real usage by kind, calls logged like every agent call, refusals recorded, cancel and deadline
cutting a reply short."""

from __future__ import annotations

import threading
import time
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from tests.agents.conftest import call, calls, say
from workbench.agents import ScriptedChatModel
from workbench.agents.accounting import AgentLog
from workbench.agents.events import AgentEvent, ModelCalled, ToolFinished, ToolStarted
from workbench.agents.turn_loop import Turn, TurnLoop, Usage
from workbench.core.context import AppContext


def ask(turns: list[Turn]) -> list[BaseMessage]:
    return [HumanMessage("add 2 and 3")]


def test_scripted_turns_run_tools_and_count_every_kind_of_token(app: AppContext) -> None:
    cached = {
        "input_tokens": 500,
        "output_tokens": 20,
        "input_token_details": {"cache_read": 300, "cache_creation": 100},
    }
    model = ScriptedChatModel(
        replies=[
            {**calls(call("sample_add", {"a": 2, "b": 3})), "usage": cached},
            {**calls(call("no_such_tool", {})), "usage": cached},
            {**calls(call("sample_add", "[2, 3]")), "usage": cached},  # not an object
            {**say("5"), "usage": {"input_tokens": 40, "output_tokens": 1}},
        ]
    )
    events: list[AgentEvent] = []
    loop = TurnLoop(
        app, model, ["sample_add"], agent="adder", model_name="scripted:x", on_event=events.append
    )
    result = loop.run(ask, lambda turn: turn.called_tools)

    assert result.ending == "done" and result.model_calls == 4
    assert result.usage == Usage(
        input_uncached=3 * 100 + 40, cache_creation=300, cache_read=900, output=61
    )
    assert result.usage.logical == 3 * 520 + 41
    first, unknown, broken, last = result.turns
    assert first.tool_results[0].run.result == {"total": 5.0}
    assert unknown.tool_results[0].run.error.kind == "unknown_tool"
    assert broken.problem == "invalid_tool_call"
    assert broken.tool_results[0].run.error.kind == "invalid_arguments"
    assert last.text == "5" and not last.called_tools
    # every attempt is in the store as the agent's call, refusals included
    assert [c["ok"] for c in app.store.tool_calls() if c["caller"] == "agent:adder"] == [
        True,
        False,
        False,
    ]
    log = AgentLog(app.store.folder)
    try:
        logged = log.calls(run_id=result.store_run_id)
    finally:
        log.close()
    assert [c["cache_read_tokens"] for c in logged] == [300, 300, 300, 0]
    assert [type(e) for e in events if not isinstance(e, ModelCalled)].count(ToolStarted) == 2
    assert len([e for e in events if isinstance(e, ToolFinished)]) == 3
    assert len([e for e in events if isinstance(e, ModelCalled)]) == 4


class SlowModel(ScriptedChatModel):
    """A model whose every reply takes `delay` seconds (a small local model on a busy machine)."""

    delay: float = 5.0

    def _chunks(self, messages: list, tools: list[dict]) -> list:  # type: ignore[override]
        time.sleep(self.delay)
        return super()._chunks(messages, tools)


def test_scripted_reply_is_cut_short_by_the_deadline(app: AppContext) -> None:
    model = SlowModel(replies=[say("late")], delay=3.0)
    loop = TurnLoop(app, model, [], agent="slow", deadline_s=0.3)
    started = time.monotonic()
    result = loop.run(ask, lambda turn: True)
    assert result.ending == "deadline" and result.turns == []
    assert time.monotonic() - started < 2.0


def test_scripted_reply_is_cut_short_by_cancel(app: AppContext) -> None:
    model = SlowModel(replies=[say("late")], delay=3.0)
    cancel = threading.Event()
    loop = TurnLoop(app, model, [], agent="slow", cancel=cancel)
    threading.Timer(0.2, cancel.set).start()
    started = time.monotonic()
    result = loop.run(ask, lambda turn: True)
    assert result.ending == "cancelled" and time.monotonic() - started < 2.0


def test_a_scripted_model_that_runs_out_is_an_error_not_a_crash(app: AppContext) -> None:
    model = ScriptedChatModel(replies=[calls(call("sample_add", {"a": 1, "b": 1}))])
    loop = TurnLoop(app, model, ["sample_add"], agent="adder")
    result: Any = loop.run(ask, lambda turn: True)
    assert result.ending == "error" and "no reply left" in result.error
    assert result.model_calls == 1
