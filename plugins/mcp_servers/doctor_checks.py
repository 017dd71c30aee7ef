"""Doctor checks of the MCP servers plugin: every configured server really started or reached,
handshaken and asked for its tools (concurrently, each within its own timeout), one line each."""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.doctor import Check, CheckResult
from workbench.core.settings import SettingsError
from workbench_plugins.mcp_servers.client import Listing, McpServerError, list_tools_once
from workbench_plugins.mcp_servers.config import McpServer, McpServersSettings

if TYPE_CHECKING:
    from workbench.core.context import AppContext

NAME = "mcp servers"


def check_servers(context: AppContext) -> list[CheckResult]:
    try:
        settings = context.settings.plugin("mcp_servers", McpServersSettings)
    except SettingsError as invalid:
        return [CheckResult(NAME, "fail", f"not checked: {invalid}")]
    if not settings.servers:
        return [CheckResult(NAME, "ok", "none configured (add them in the MCP servers view)")]
    enabled = settings.enabled()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # the caller may run a loop
        outcomes = pool.submit(asyncio.run, _reach(enabled, context.store.folder)).result()
    results = [
        result_line(server, outcome) for server, outcome in zip(enabled, outcomes, strict=True)
    ]
    results += [
        CheckResult(_name(server), "ok", f"disabled, not checked ({server.target()})")
        for server in settings.servers
        if not server.enabled
    ]
    return results


async def _reach(servers: list[McpServer], workspace: Path) -> list[Listing | McpServerError]:
    async def one(server: McpServer) -> Listing | McpServerError:
        try:
            return await list_tools_once(server, workspace)
        except McpServerError as failed:
            return failed

    return list(await asyncio.gather(*(one(server) for server in servers)))


def result_line(server: McpServer, outcome: Listing | McpServerError) -> CheckResult:
    """One doctor line: its tool count and where it is, or why it failed and what to do."""
    if isinstance(outcome, McpServerError):
        detail = f"{outcome.what.rstrip('.')}; {server.target()}"
        return CheckResult(_name(server), "fail", detail, outcome.hint)
    listed = {tool.name for tool in outcome.tools}
    detail = f"{len(outcome.tools)} tools ({server.target()})"
    unknown = [name for name in server.world_tools if name not in listed]
    if unknown:
        return CheckResult(
            _name(server),
            "warn",
            f"{detail}; marked as acting on the world but not offered by it: {', '.join(unknown)}",
            "Fix the names in the MCP servers view (the server's tools: "
            f"{', '.join(sorted(listed)) or 'none'}).",
        )
    return CheckResult(_name(server), "ok", detail)


def _name(server: McpServer) -> str:
    return f"mcp server {server.name!r}"


def checks() -> list[Check]:
    return [check_servers]
