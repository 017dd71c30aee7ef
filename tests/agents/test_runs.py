"""Run bookkeeping: cancellation (the chat panel's stop button) and token accounting."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.agents.conftest import say
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.agents.events import AgentError, RunFinished, RunStarted


class SlowScriptedModel(ScriptedChatModel):
    """A scripted (fake) model that thinks for a long time before its first token."""

    async def _astream(self, *args: Any, **kwargs: Any):  # type: ignore[override]
        await asyncio.sleep(30)
        for chunk in self._stream(*args, **kwargs):
            yield chunk


def test_cancelled_run_is_recorded_and_the_conversation_continues_with_scripted_model(app):
    runtime = AgentRuntime(app, SlowScriptedModel(replies=[say("never")]), model_name="slow")
    events: list[Any] = []

    async def stop_soon() -> None:
        task = asyncio.create_task(runtime.send("stop-me", "Think hard.", on_event=events.append))
        while not any(isinstance(e, RunStarted) for e in events):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stop_soon())
    assert [e.kind for e in events if isinstance(e, AgentError)] == ["cancelled"]
    assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"
    assert app.store.runs("agent")[-1]["status"] == "cancelled"

    again = AgentRuntime(app, ScriptedChatModel(replies=[say("Here I am.")]), model_name="quick")
    result = again.send_sync("stop-me", "Still there?")
    assert result.answer == "Here I am.", result.error
    transcript = asyncio.run(again.transcript("stop-me"))
    assert [e["content"] for e in transcript if e["role"] == "user"] == [
        "Think hard.",
        "Still there?",
    ]
    runtime.close()
    again.close()


def test_tokens_per_call_and_totals_include_cache_counts_with_scripted_model(app, scripted):
    usage = {
        "input_tokens": 100,
        "output_tokens": 5,
        "input_token_details": {"cache_read": 60, "cache_creation": 10},
    }
    runtime, _ = scripted([{"content": "hi", "usage": usage}])
    result = runtime.send_sync("tokens", "hello")
    [row] = runtime.log.calls(thread_id="tokens")
    assert (row["input_tokens"], row["output_tokens"]) == (100, 5)
    assert (row["cache_read_tokens"], row["cache_creation_tokens"]) == (60, 10)
    assert row["latency_s"] >= 0 and row["agent"] == "supervisor"
    assert result.totals["cache_read_tokens"] == 60 and result.totals["model_calls"] == 1
    assert app.store.runs("agent")[-1]["meta"]["totals"]["input_tokens"] == 100
