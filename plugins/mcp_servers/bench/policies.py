"""One cell's calls: the same tool call N times directly through the cell's registry (the
baseline) and through MCP to Workbench's own server, alternately, each timed.

The server is `python -m workbench --headless mcp` over stdio with WORKBENCH_HOME in the cell
(its settings, store and workspace are the cell's own, whatever this machine has configured),
reached on a kept session of this plugin's session machinery (`SessionPool.use`, as
`sessions.call_tool` does for the specialists). The pool is the cell's own, so its server is
started and stopped with the cell and no other session is touched.

Policies (the cell's `model`):
- `reference`: the real round trip.
- `offtarget:skips-server`: never starts the server; claims the direct results (and timings) as
  the MCP answers.
- `offtarget:tampered`: the real round trip, then one value of the last answer is changed.
Any other model plays the reference (the suite measures no model); an unknown `offtarget:`
policy is refused.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.session import DEFAULT_CLIENT_INFO
from mcp_types import CallToolResult

from workbench.bench import CellContext
from workbench.bench.tool_calls import HarnessFailure
from workbench.core.paths import AppPaths
from workbench.core.programs import workbench_command
from workbench_plugins.mcp_servers.client import McpServerError, listing_of
from workbench_plugins.mcp_servers.config import McpServer
from workbench_plugins.mcp_servers.sessions import SessionPool

REFERENCE = "reference"
SKIPS_SERVER = "offtarget:skips-server"
TAMPERED = "offtarget:tampered"
SERVER_HOME = "server-home"  # in the cell folder: the server's WORKBENCH_HOME
SERVER_NAME = "workbench"
CONNECT_TIMEOUT_S = 45.0  # the most McpServer allows: a cold Python start on a busy machine
# the plugin's client sends no clientInfo of its own: the server records the SDK's default name
CLIENT_NAME = DEFAULT_CLIENT_INFO.name


def policy_of(model: str) -> str:
    """The policy a model spec plays: the off-target ones by name, any model the reference (the
    suite measures no model); an unknown off-target policy is refused rather than played as
    the reference, which would score it faithful."""
    if model in (SKIPS_SERVER, TAMPERED):
        return model
    if model.startswith("offtarget:"):
        raise ValueError(
            f"mcp-roundtrip has no policy {model!r}; its off-target policies are "
            f"{SKIPS_SERVER} and {TAMPERED}."
        )
    return REFERENCE


def server_home(folder: Path) -> Path:
    return folder / SERVER_HOME


def server_workspace(folder: Path) -> Path:
    """The workspace the server uses: the default one under its WORKBENCH_HOME (as
    `workbench.core.paths.app_paths` makes it from the variable)."""
    home = server_home(folder).expanduser().resolve()
    return AppPaths(home / "config", home / "data", home / "cache").default_workspace


def workbench_server(folder: Path) -> McpServer:
    """Workbench's own MCP server, sealed in the cell folder `folder`."""
    home = server_home(folder)
    return McpServer(
        name=SERVER_NAME,
        description="Workbench itself, with a home of its own in the bench cell",
        command=workbench_command()[0],
        args=[*workbench_command()[1:], "--headless", "mcp"],
        env={"WORKBENCH_HOME": str(home)},
        cwd=str(home),
        timeout_s=CONNECT_TIMEOUT_S,
    )


@dataclass(frozen=True)
class McpAnswer:
    """One answer as the client got it, and how long the call took from the cell's loop."""

    ms: float
    result: dict[str, Any] | None  # the structured content
    text: str  # the text content, what a model reads
    is_error: bool


@dataclass(frozen=True)
class Played:
    """What a policy did in one cell."""

    answers: list[McpAnswer]  # what it claims the server answered
    direct: list[dict[str, Any]]  # the baseline's results, as JSON
    direct_ms: list[float]
    start_s: float  # starting the server and listing its tools (0: never started)
    listed_tools: int


def play(model: str, tool: str, arguments: dict[str, Any], count: int, cell: CellContext) -> Played:
    """Run `model`'s policy for `count` calls of `tool` with `arguments`."""
    return asyncio.run(_play(policy_of(model), tool, arguments, count, cell))


async def _play(
    policy: str, tool: str, arguments: dict[str, Any], count: int, cell: CellContext
) -> Played:
    if policy == SKIPS_SERVER:
        direct_ms, direct = await _direct_calls(cell, tool, arguments, count)
        claimed = [
            McpAnswer(ms, r, json.dumps(r), False) for ms, r in zip(direct_ms, direct, strict=True)
        ]
        return Played(claimed, direct, direct_ms, start_s=0.0, listed_tools=0)
    played = await _round_trip(cell, tool, arguments, count)
    if policy == TAMPERED:
        return replace(played, answers=tampered(played.answers))
    return played


async def _round_trip(
    cell: CellContext, tool: str, arguments: dict[str, Any], count: int
) -> Played:
    server = workbench_server(cell.folder)
    home = server_home(cell.folder)
    home.mkdir(parents=True, exist_ok=True)
    pool = SessionPool()
    answers: list[McpAnswer] = []
    direct: list[dict[str, Any]] = []
    direct_ms: list[float] = []
    try:
        started = time.perf_counter()
        listing = await pool.run(
            pool.use(server, home, server.timeout_s, "listing its tools", listing_of)
        )
        start_s = time.perf_counter() - started
        if tool not in {listed.name for listed in listing.tools}:
            raise HarnessFailure(f"Workbench's MCP server does not list {tool!r}.")
        for _ in range(count):  # alternately, so that drift in the machine's load hits both
            ms, result = await _direct_call(cell, tool, arguments)
            direct_ms.append(ms)
            direct.append(result)
            answers.append(await _mcp_call(pool, server, home, tool, arguments))
    except McpServerError as failed:
        raise HarnessFailure(f"{failed.message} {failed.hint}") from failed
    finally:
        await _shut(pool)
    return Played(answers, direct, direct_ms, start_s, len(listing.tools))


async def _mcp_call(
    pool: SessionPool, server: McpServer, home: Path, tool: str, arguments: dict[str, Any]
) -> McpAnswer:
    """One call on the kept session, as `sessions.call_tool` makes it (on the cell's pool)."""

    async def calling(client: Client) -> CallToolResult:
        return await client.call_tool(tool, copy.deepcopy(arguments))

    started = time.perf_counter()
    answer = await pool.run(
        pool.use(server, home, server.call_timeout_s, f"calling {tool}", calling)
    )
    ms = (time.perf_counter() - started) * 1e3
    text = "\n".join(str(getattr(block, "text", "")) for block in answer.content)
    structured = answer.structured_content
    return McpAnswer(ms, None if structured is None else as_json(structured), text, answer.is_error)


async def _direct_calls(
    cell: CellContext, tool: str, arguments: dict[str, Any], count: int
) -> tuple[list[float], list[dict[str, Any]]]:
    timings, results = [], []
    for _ in range(count):
        ms, result = await _direct_call(cell, tool, arguments)
        timings.append(ms)
        results.append(result)
    return timings, results


async def _direct_call(
    cell: CellContext, tool: str, arguments: dict[str, Any]
) -> tuple[float, dict[str, Any]]:
    """The baseline: the registry call the server makes for each MCP call, in the cell's app."""
    started = time.perf_counter()
    outcome = await cell.app.registry.acall(tool, copy.deepcopy(arguments), caller=cell.caller)
    ms = (time.perf_counter() - started) * 1e3
    if not outcome.ok:
        detail = outcome.error.explain() if outcome.error else "failed"
        raise HarnessFailure(f"the direct call of {tool} failed: {detail}")
    return ms, as_json(outcome.result or {})


async def _shut(pool: SessionPool) -> None:
    """Close the cell's session (the server exits when its stdin closes) and stop the pool's
    loop, so that each cell leaves no thread behind."""
    await pool.run(pool.keep_only(set()))
    loop = await pool.run(_running_loop())
    loop.call_soon_threadsafe(loop.stop)


async def _running_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def as_json(value: Any) -> Any:
    """`value` as the store records it: through JSON (tuples become lists, odd types strings)."""
    return json.loads(json.dumps(value, default=str))


def tampered(answers: list[McpAnswer]) -> list[McpAnswer]:
    """The answers with one value of the last one changed (its first number in key order, else
    its first text), in its structured result and its text alike."""
    if not answers or answers[-1].result is None:
        return answers
    changed = copy.deepcopy(answers[-1].result)
    _change_first_leaf(changed)
    edited = replace(answers[-1], result=changed, text=json.dumps(changed, ensure_ascii=False))
    return [*answers[:-1], edited]


def _change_first_leaf(result: dict[str, Any]) -> None:
    keys = sorted(result)
    for key in keys:
        value = result[key]
        if isinstance(value, int | float) and not isinstance(value, bool):
            result[key] = value + 1
            return
    for key in keys:
        if isinstance(result[key], str):
            result[key] += " (edited)"
            return
    result["edited"] = True
