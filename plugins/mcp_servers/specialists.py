"""The plugin's `specialists` hook: one specialist per reachable external MCP server, its tools in
the registry, awaited by the agent runtime before each run.

Servers are reached concurrently, each within its own timeout, on sessions kept open for the
calls (sessions.py). What a server offers is kept (by how it is reached: command, URL,
environment...) until those settings change, so only the first run lists it; a server that could
not be reached is a notice naming it and why, and is tried again after a minute, then after
longer and longer waits (`retry_after`), so one that hangs does not hold up every run; the other
servers work meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.events import Notice
from workbench.core.plugins import Specialist
from workbench.core.registry import ToolRegistry
from workbench.core.tools import Tool
from workbench_plugins.mcp_servers import sessions
from workbench_plugins.mcp_servers.client import Listing, McpServerError
from workbench_plugins.mcp_servers.config import McpServer, McpServersSettings
from workbench_plugins.mcp_servers.prompt import specialist_for
from workbench_plugins.mcp_servers.remote_tools import remote_tools

if TYPE_CHECKING:
    from workbench.core.context import AppContext

PLUGIN = "mcp_servers"
RETRY_AFTER_S = 60.0  # after a first failure; doubled after each further one
RETRY_AFTER_MAX_S = 1800.0
log = logging.getLogger(__name__)


@dataclass
class _Known:
    """What one connection found: a listing, or the error, and when."""

    listing: Listing | None
    error: McpServerError | None
    at: float
    failures: int = 0  # in a row
    tools: dict[str, list[Tool]] = field(default_factory=dict)  # by the server's whole settings


_known: dict[str, _Known] = {}  # by connection_key
_lock = threading.Lock()  # runs of several workspaces (bench cells) may refresh at once


def remember(server: McpServer, listing: Listing) -> None:
    """Keep a listing found elsewhere (the view's Test button), so the next run need not
    connect."""
    with _lock:
        _known[server.connection()] = _Known(listing, None, time.monotonic())


def known_listing(server: McpServer) -> Listing | None:
    """What a server was last found to offer, if it was (no connection made here)."""
    with _lock:
        known = _known.get(server.connection())
    return None if known is None else known.listing


def forget() -> None:
    """Forget every listing and close every session (the next run reconnects)."""
    with _lock:
        _known.clear()
    sessions.pool.close_all()


async def specialists(context: AppContext) -> list[Specialist]:
    """One specialist per enabled server that answers, its tools registered in the context's
    registry (and the tools of servers no longer offered taken out). Raises SettingsError when
    the plugin's settings are invalid: the runtime says so in a notice."""
    settings = context.settings.plugin(PLUGIN, McpServersSettings)
    servers = settings.enabled()
    workspace = context.store.folder
    listings = await asyncio.gather(*(_listing(server, workspace, context) for server in servers))
    made: list[Specialist] = []
    wanted: list[Tool] = []
    for server, listing in zip(servers, listings, strict=True):
        if listing is None:
            continue
        tools, fresh = _tools_of(server, listing)
        if fresh:  # said once per listing and settings, not at every run
            _warn_unknown_world_tools(context, server, listing)
        refused = _register(context.registry, tools)
        if refused:
            _notice(context, f"MCP server {server.name!r}: {refused}")
        offered = [tool for tool in tools if context.registry.get(tool.name) is tool]
        wanted += offered
        made.append(specialist_for(server, listing, offered))
    _unregister_others(context.registry, {tool.name for tool in wanted})
    await sessions.keep_only(servers)
    return made


async def _listing(server: McpServer, workspace: Path, context: AppContext) -> Listing | None:
    key = server.connection()
    with _lock:
        known = _known.get(key)
    if known is not None and known.listing is not None:
        return known.listing
    failures = 0 if known is None else known.failures
    if known is not None and time.monotonic() - known.at < retry_after(failures):
        return None  # failed a moment ago: said so then
    try:
        listing = await sessions.list_tools(server, workspace)
    except McpServerError as failed:
        with _lock:
            _known[key] = _Known(None, failed, time.monotonic(), failures + 1)
        _notice(
            context,
            f"{failed.message} {failed.hint} Its specialist is not offered; the other "
            f"specialists work. Tried again in {retry_after(failures + 1):g} s (or Test it in "
            "the MCP servers view).",
        )
        return None
    remember(server, listing)
    return listing


def retry_after(failures: int) -> float:
    """How long a server that failed `failures` times in a row is left alone: a server that
    hangs until its timeout must not hold up every run."""
    if failures <= 0:
        return 0.0
    return min(RETRY_AFTER_S * 2 ** (failures - 1), RETRY_AFTER_MAX_S)


def _tools_of(server: McpServer, listing: Listing) -> tuple[list[Tool], bool]:
    """The registry tools of `server`, made once per listing and settings (a run that changes
    nothing re-registers nothing), and whether they were made just now."""
    settings_key = server.model_dump_json()
    with _lock:
        known = _known.setdefault(server.connection(), _Known(listing, None, time.monotonic()))
        if known.listing is not listing:
            known.listing, known.tools = listing, {}
        made = known.tools.get(settings_key)
        if made is not None:
            return made, False
        made = known.tools[settings_key] = remote_tools(server, listing.tools)
        return made, True


def _register(registry: ToolRegistry, tools: list[Tool]) -> str:
    """Put `tools` in the registry (replacing this plugin's older ones); what was refused."""
    refused: list[str] = []
    for tool in tools:
        if registry.get(tool.name) is tool:
            continue
        try:
            registry.register(tool, owner=PLUGIN, replace=True)
        except ValueError as taken:
            refused.append(str(taken))
    return " ".join(refused)


def _unregister_others(registry: ToolRegistry, wanted: set[str]) -> None:
    """Tools of servers no longer offered (removed, disabled, unreachable) leave the registry."""
    for name in registry.owned_by(PLUGIN):
        if name not in wanted:
            registry.unregister(name)


def _warn_unknown_world_tools(context: AppContext, server: McpServer, listing: Listing) -> None:
    listed = {tool.name for tool in listing.tools}
    unknown = [name for name in server.world_tools if name not in listed]
    if unknown:
        _notice(
            context,
            f"MCP server {server.name!r} has no tool named {', '.join(map(repr, unknown))} "
            f"(its tools: {', '.join(sorted(listed)) or 'none'}); check the names marked as "
            "acting on the world in the MCP servers view.",
        )


def _notice(context: AppContext, text: str) -> None:
    log.warning(text)  # headless runs and benchmarks have no one listening on the bus
    context.bus.publish(Notice(source=PLUGIN, level="warning", text=text))
