"""Doctor really reaches every configured server (the REAL test server: a stdio subprocess, and
one on streamable HTTP behind a bearer token from the keyring); the HTTP server as a specialist
whose tool answers; settings refuse a password in a URL."""

from __future__ import annotations

import asyncio

import pytest

from tests.mcp_servers.conftest import HTTP_TOKEN, configure, stdio_server
from workbench.core.context import AppContext
from workbench.core.doctor import CheckResult, run_checks
from workbench.core.secrets import set_secret
from workbench_plugins.mcp_servers.config import McpServer, McpServersSettings, token_entry
from workbench_plugins.mcp_servers.specialists import specialists


def mcp_lines(context: AppContext) -> dict[str, CheckResult]:
    return {r.name: r for r in run_checks(context) if r.name.startswith("mcp server")}


def test_doctor_lists_each_servers_tools_or_says_why_not(context: AppContext) -> None:
    configure(
        context,
        stdio_server(),
        stdio_server("typo", world_tools=["move_stag"]),
        stdio_server("gone", command="/nonexistent/gone-server", args=[]),
        stdio_server("off", enabled=False),
    )

    lines = mcp_lines(context)

    ok = lines["mcp server 'bench'"]
    assert ok.level == "ok"
    assert ok.line() == (f"[     ok] mcp server 'bench': 3 tools ({stdio_server().target()})")
    typo = lines["mcp server 'typo'"]
    assert typo.level == "warn" and "not offered by it: move_stag" in typo.detail
    assert "beam_deflection, move_stage, refuse" in typo.fix
    gone = lines["mcp server 'gone'"]
    assert gone.level == "fail"
    assert "cannot start '/nonexistent/gone-server': No such file or directory" in gone.detail
    assert "Check the command" in gone.fix
    assert lines["mcp server 'off'"].detail.startswith("disabled, not checked")


def test_doctor_with_no_servers_says_where_to_add_them(context: AppContext) -> None:
    [line] = [r for r in run_checks(context) if r.name == "mcp servers"]
    assert line.level == "ok" and "MCP servers view" in line.detail


def test_http_server_with_the_keyring_token_is_a_specialist_whose_tool_answers(
    context: AppContext, http_server: str
) -> None:
    server = McpServer(name="remote", url=http_server, description="Remote beam service")
    configure(context, server)

    refused = mcp_lines(context)["mcp server 'remote'"]
    assert refused.level == "fail"
    assert "refused access (HTTP 401)" in refused.detail
    assert refused.fix == "Store its bearer token with `keyring set workbench 'mcp-server-remote'`."
    assert asyncio.run(specialists(context)) == []

    set_secret(token_entry("remote"), HTTP_TOKEN)
    assert mcp_lines(context)["mcp server 'remote'"].line() == (
        f"[     ok] mcp server 'remote': 3 tools (http: {http_server})"
    )
    from workbench_plugins.mcp_servers import specialists as hook

    hook.forget()  # the failure a moment ago would otherwise wait a minute before a retry
    [made] = asyncio.run(specialists(context))
    assert made.name == "mcp_remote"
    outcome = context.registry.call(
        "remote__beam_deflection", {"load_n": 1000, "length_m": 2}, caller="test"
    )
    assert outcome.ok and outcome.result is not None, outcome.error
    assert outcome.result["structured"] == {"result": 0.833333}


def test_settings_refuse_a_password_in_the_url_and_say_where_it_belongs() -> None:
    with pytest.raises(ValueError) as refused:
        McpServer(name="lab", url="https://me:hunter2@lab.example/mcp")
    message = str(refused.value)
    assert "hunter2" not in message
    assert "entry 'mcp-server-lab'" in message
    with pytest.raises(ValueError, match="server names must be unique: lab appear"):
        McpServersSettings(servers=[stdio_server("lab"), stdio_server("lab")])
