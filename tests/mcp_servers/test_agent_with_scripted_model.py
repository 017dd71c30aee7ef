"""Acceptance 2: an external MCP server (the REAL test server, a subprocess over stdio) is a
specialist the supervisor hands a request to; the specialist calls the remote tool and its result
reaches the chat. The language model is SCRIPTED (no model runs here); everything else is real:
the graph, the registry, the SDK client and server. Also: a world tool is a confirmation
interrupt, an unreachable server leaves the other specialists working, and a failing specialists
hook is a notice, never a failed run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from tests.agents.conftest import call, calls, handoff, say
from tests.mcp_servers.conftest import configure, stdio_server
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.agents.events import InterruptRequested, Routed, ToolFinished
from workbench.core.context import AppContext
from workbench.core.events import Notice
from workbench.core.plugins import Plugin

BEAM_TURN = [
    handoff("mcp_bench", "Mid-span deflection of a 2 m beam under 1000 N?"),
    calls(call("bench__beam_deflection", {"load_n": 1000, "length_m": 2})),
    say("The server computed 0.833333 mm."),
    say("The mid-span deflection is 0.833 mm (from the bench MCP server)."),
]


@pytest.fixture
def app(context: AppContext) -> AppContext:
    # only the external servers' specialists route, whatever else this checkout installed
    context.plugins.plugins = {"mcp_servers": context.plugins.plugins["mcp_servers"]}
    return context


@pytest.fixture
def runtime_for(app: AppContext) -> Iterator[Any]:
    made: list[AgentRuntime] = []

    def make(replies: list[dict[str, Any]]) -> tuple[AgentRuntime, ScriptedChatModel]:
        model = ScriptedChatModel(replies=replies)
        runtime = AgentRuntime(app, model, model_name="scripted:test")
        made.append(runtime)
        return runtime, model

    yield make
    for runtime in made:
        runtime.close()


def test_supervisor_hands_the_request_to_the_mcp_specialist_with_scripted_model(
    app: AppContext, runtime_for: Any
) -> None:
    configure(app, stdio_server())
    runtime, model = runtime_for(BEAM_TURN)

    result = runtime.send_sync("beam", "How much does my 2 m beam deflect under 1000 N?")

    assert result.status == "done", result.error
    assert result.notices == []
    assert [(e.specialist, e.task) for e in result.events if isinstance(e, Routed)] == [
        ("mcp_bench", "Mid-span deflection of a 2 m beam under 1000 N?")
    ]
    [finished] = [e for e in result.events if isinstance(e, ToolFinished)]
    assert finished.ok and finished.tool == "bench__beam_deflection"
    assert finished.result is not None and finished.result["structured"] == {"result": 0.833333}
    # the remote result is what the specialist heard, and its report what the supervisor heard
    heard = model.seen[2]["messages"][-1]
    assert isinstance(heard, ToolMessage) and '"text": "0.833333"' in heard.content
    assert result.answer == "The mid-span deflection is 0.833 mm (from the bench MCP server)."
    # the supervisor was offered the server as a specialist; the specialist only its tools
    supervisor_tools, specialist_tools = model.seen[0]["tools"], model.seen[1]["tools"]
    assert supervisor_tools == ["transfer_to_mcp_bench"]
    assert specialist_tools == [
        "bench__beam_deflection",
        "bench__move_stage",
        "bench__refuse",
        "ask_human_for_clarification",
    ]
    assert "Beam calculations" in model.seen[0]["messages"][0].content
    [recorded] = app.store.tool_calls("bench__beam_deflection")
    assert recorded["caller"] == "agent:mcp_bench" and recorded["ok"]


def test_a_world_tool_is_a_confirmation_interrupt_with_scripted_model(
    app: AppContext, runtime_for: Any, stage_log: Path
) -> None:
    env = {"MCP_TEST_STAGE_LOG": str(stage_log)}
    configure(app, stdio_server(world_tools=["move_stage"], env=env))
    runtime, _ = runtime_for(
        [
            handoff("mcp_bench", "Move the stage 5 mm out."),
            calls(call("bench__move_stage", {"mm": 5})),
            say("The stage moved by 5.0 mm."),
            say("Moved the stage 5 mm."),
        ]
    )

    first = runtime.send_sync("stage", "Move the stage 5 mm out.")

    assert first.status == "interrupted", first.error
    [request] = first.interrupts
    assert request.kind == "confirmation" and request.tool == "bench__move_stage"
    assert request.arguments == {"mm": 5} and request.agent == "mcp_bench"
    assert request.question.startswith("mcp_bench wants to run bench__move_stage (physical)")
    assert "on MCP server 'bench' (stdio: " in request.question
    assert not stage_log.exists()  # nothing moved while waiting

    second = runtime.resume_sync("stage", {"approved": True})

    assert second.status == "done", second.error
    assert stage_log.read_text() == "5.0\n"
    [finished] = [e for e in second.events if isinstance(e, ToolFinished)]
    assert finished.ok and finished.result is not None
    assert finished.result["text"] == "stage moved by 5.0 mm"
    assert not [e for e in second.events if isinstance(e, InterruptRequested)]


def test_an_unreachable_server_leaves_the_others_working_with_scripted_model(
    app: AppContext, runtime_for: Any
) -> None:
    notices: list[Notice] = []
    app.bus.subscribe(Notice, notices.append)
    broken = stdio_server("lab", command="/nonexistent/lab-server", args=[])
    configure(app, broken, stdio_server())
    runtime, model = runtime_for(BEAM_TURN)

    result = runtime.send_sync("beam", "How much does my beam deflect?")

    assert result.status == "done", result.error
    assert model.seen[0]["tools"] == ["transfer_to_mcp_bench"]
    [finished] = [e for e in result.events if isinstance(e, ToolFinished)]
    assert finished.ok
    [notice] = [n.text for n in notices if n.source == "mcp_servers"]
    assert notice.startswith("MCP server 'lab' (stdio: /nonexistent/lab-server): cannot start")


def test_a_failing_specialists_hook_is_a_notice_not_a_failed_run_with_scripted_model(
    app: AppContext, runtime_for: Any
) -> None:
    notices: list[Notice] = []
    app.bus.subscribe(Notice, notices.append)
    # settings the plugin refuses (a server without a command or URL): its hook fails
    app.settings = app.settings.model_copy(
        update={"plugins": {"mcp_servers": {"servers": [{"name": "lab"}]}}}
    )
    app.plugins.plugins["broken"] = Plugin(
        name="broken", title="Broken", specialists="no_such_module_here:specialists"
    )
    runtime, _ = runtime_for([say("No specialist fits; here is what I know.")])

    result = runtime.send_sync("plain", "Hello?")

    assert result.status == "done", result.error
    assert result.answer == "No specialist fits; here is what I know."
    assert len(result.notices) == 2
    broken, mcp = sorted(result.notices)
    assert mcp.startswith("Plugin 'mcp_servers' could not make its specialists")
    assert "needs either a command (stdio) or a url (HTTP)" in mcp
    assert "Fix [plugins.mcp_servers]" in mcp
    assert broken.startswith("Plugin 'broken' could not make its specialists")
    assert "ModuleNotFoundError" in broken
    assert sorted(n.text for n in notices if n.source == "agents") == sorted(result.notices)
    [run] = app.store.runs("agent")
    assert run["meta"]["notices"] == result.notices
