"""An external MCP server (the REAL test server, a subprocess over stdio) becomes a specialist with
its tools in the registry: the schema passed through, results and errors in words, world tools
confirmed, an unreachable server a notice while the others work, settings changes followed."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from tests.mcp_servers.conftest import configure, stdio_server
from workbench.agents.toolbridge import tool_schema
from workbench.core.context import AppContext
from workbench.core.events import Notice
from workbench.core.secrets import set_secret
from workbench.core.tools import SideEffect
from workbench_plugins.mcp_servers.specialists import forget, retry_after, specialists


def test_server_appears_as_a_specialist_with_its_tools_and_their_schemas(
    context: AppContext,
) -> None:
    configure(context, stdio_server(world_tools=["move_stage"]))

    [specialist] = asyncio.run(specialists(context))

    assert specialist.name == "mcp_bench"
    assert specialist.tools == (
        "bench__beam_deflection",
        "bench__move_stage",
        "bench__refuse",
        "ask_human_for_clarification",
    )
    assert specialist.description.startswith("Beam calculations and the lab's motion stage")
    assert "beam_deflection" in specialist.description
    assert "bench__move_stage" in specialist.prompt and "a person confirms" in specialist.prompt
    assert context.registry.owner("bench__beam_deflection") == "mcp_servers"
    # the server's own input schema is what the model is given
    beam = context.registry.get("bench__beam_deflection")
    assert beam is not None and not beam.confirm
    parameters = tool_schema(beam)["function"]["parameters"]
    assert parameters["properties"]["load_n"] == {"title": "Load N", "type": "number"}
    assert parameters["properties"]["e_gpa"]["default"] == 200.0
    assert parameters["required"] == ["load_n", "length_m"]
    move = context.registry.get("bench__move_stage")
    assert move is not None and move.confirm and move.side_effect is SideEffect.PHYSICAL


def test_a_call_returns_the_server_result_and_errors_come_back_in_words(
    context: AppContext,
) -> None:
    configure(context, stdio_server())
    asyncio.run(specialists(context))

    outcome = context.registry.call(
        "bench__beam_deflection", {"load_n": 1000, "length_m": 2}, caller="test"
    )
    assert outcome.ok, outcome.error
    assert outcome.result == {
        "server": "bench",
        "tool": "beam_deflection",
        "text": "0.833333",
        "structured": {"result": 0.833333},
        "truncated": False,
    }
    [recorded] = context.store.tool_calls("bench__beam_deflection")
    assert recorded["ok"] and recorded["caller"] == "test"

    refused = context.registry.call("bench__refuse", {"reason": "stage not homed"}, caller="test")
    assert not refused.ok and refused.error is not None
    assert refused.error.kind == "failed"
    assert refused.error.message == (
        "refuse on MCP server 'bench' reported an error: Error executing tool refuse: "
        "stage not homed"
    )

    # checked against the server's schema here: the field and the rule, nothing sent
    invalid = context.registry.call("bench__beam_deflection", {"load_n": "x"}, caller="test")
    assert not invalid.ok and invalid.error is not None
    assert invalid.error.kind == "invalid_arguments"
    problems = {(p.field, p.constraint) for p in invalid.error.problems}
    assert problems == {("length_m", "missing"), ("load_n", "schema_type")}


def test_a_world_tool_waits_for_confirmation(context: AppContext, stage_log: Path) -> None:
    server = stdio_server(world_tools=["move_stage"], env={"MCP_TEST_STAGE_LOG": str(stage_log)})
    configure(context, server)
    asyncio.run(specialists(context))

    refused = context.registry.call("bench__move_stage", {"mm": 5}, caller="agent:mcp_bench")
    assert not refused.ok and refused.error is not None
    assert refused.error.kind == "confirmation_required"
    assert "acts on the physical world" in refused.error.message
    assert "on MCP server 'bench' (stdio:" in refused.error.message
    assert not stage_log.exists()  # never reached the server

    moved = context.registry.call("bench__move_stage", {"mm": 5}, caller="test", confirmed=True)
    assert moved.ok and moved.result is not None, moved.error
    assert moved.result["text"] == "stage moved by 5.0 mm"
    assert stage_log.read_text() == "5.0\n"


def test_an_unreachable_server_is_a_notice_and_the_others_still_work(
    context: AppContext,
) -> None:
    notices: list[Notice] = []
    context.bus.subscribe(Notice, notices.append)
    broken = stdio_server("broken", command="/nonexistent/mcp-server", args=[])
    configure(context, broken, stdio_server())

    made = asyncio.run(specialists(context))

    assert [s.name for s in made] == ["mcp_bench"]
    [notice] = [n for n in notices if n.source == "mcp_servers"]
    assert notice.text.startswith(
        "MCP server 'broken' (stdio: /nonexistent/mcp-server): cannot start "
        "'/nonexistent/mcp-server': No such file or directory."
    )
    assert "Its specialist is not offered; the other specialists work." in notice.text
    assert "Tried again in 60 s (or Test it in the MCP servers view)." in notice.text
    assert [retry_after(n) for n in (0, 1, 2, 3, 20)] == [0, 60, 120, 240, 1800]
    assert not any(name.startswith("broken__") for name in context.registry.names())
    # tried again only after a while: the next run neither waits nor repeats the notice
    assert [s.name for s in asyncio.run(specialists(context))] == ["mcp_bench"]
    assert len([n for n in notices if n.source == "mcp_servers"]) == 1


def test_settings_changes_are_followed_without_reconnecting_needlessly(
    context: AppContext, tmp_path: Path
) -> None:
    starts = tmp_path / "starts.log"
    env = {"MCP_TEST_START_LOG": str(starts)}
    configure(context, stdio_server(env=env))
    asyncio.run(specialists(context))
    before = context.registry.get("bench__move_stage")
    assert before is not None and not before.confirm
    assert len(starts.read_text().splitlines()) == 1

    # marking a world tool changes the tool, not the connection: no new session
    configure(context, stdio_server(env=env, world_tools=["move_stage"]))
    asyncio.run(specialists(context))
    after = context.registry.get("bench__move_stage")
    assert after is not None and after.confirm
    assert len(starts.read_text().splitlines()) == 1

    # switched off: its tools leave the registry
    configure(context, stdio_server(env=env, enabled=False))
    assert asyncio.run(specialists(context)) == []
    assert context.registry.owned_by("mcp_servers") == []


def test_calls_share_one_session_and_a_dead_server_is_started_again(
    context: AppContext, tmp_path: Path
) -> None:
    starts = tmp_path / "starts.log"
    configure(context, stdio_server(env={"MCP_TEST_START_LOG": str(starts)}))
    asyncio.run(specialists(context))
    arguments = {"load_n": 500, "length_m": 1}
    for _ in range(3):
        assert context.registry.call("bench__beam_deflection", arguments, caller="test").ok
    [pid] = starts.read_text().split()

    os.kill(int(pid), signal.SIGKILL)  # the server dies between two calls
    lost = context.registry.call("bench__beam_deflection", arguments, caller="test")
    assert not lost.ok and lost.error is not None and lost.error.kind == "failed"
    assert lost.error.message.startswith("MCP server 'bench' (stdio: "), lost.error.message
    assert "the connection was lost while calling beam_deflection" in lost.error.message
    assert "the next call starts or reaches it again" in lost.error.hint

    again = context.registry.call("bench__beam_deflection", arguments, caller="test")
    assert again.ok and again.result is not None, again.error
    assert again.result["structured"] == {"result": 0.052083}
    assert len(starts.read_text().split()) == 2


def test_a_secret_environment_variable_comes_from_the_keyring(
    context: AppContext, stage_log: Path
) -> None:
    notices: list[Notice] = []
    context.bus.subscribe(Notice, notices.append)
    configure(context, stdio_server(secret_env=["MCP_TEST_STAGE_LOG"]))

    assert asyncio.run(specialists(context)) == []
    [notice] = [n.text for n in notices if n.source == "mcp_servers"]
    assert "no value for MCP_TEST_STAGE_LOG in the keyring (service 'workbench', entry " in notice
    assert "`keyring set workbench 'mcp-server-bench:MCP_TEST_STAGE_LOG'`" in notice

    set_secret("mcp-server-bench:MCP_TEST_STAGE_LOG", str(stage_log))
    forget()  # retried now rather than in a minute
    asyncio.run(specialists(context))
    moved = context.registry.call("bench__move_stage", {"mm": 2}, caller="test")
    assert moved.ok, moved.error
    assert stage_log.read_text() == "2.0\n"
