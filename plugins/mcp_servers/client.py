"""Talking to one external MCP server with the official `mcp` SDK client: the client for its
settings (stdio or streamable HTTP with the keyring's token), its tool listing, and a session
used once (doctor, the view's Test button; the agent's sessions are kept open: sessions.py).

A stdio server's stderr goes to a temporary file, so a server that fails to start is explained by
its own last lines. Every failure becomes an `McpServerError` that says which server, what
failed and what to do.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, Tool

from workbench.core.secrets import SERVICE, SecretUnavailable, get_secret, where
from workbench_plugins.mcp_servers.config import McpServer, secret_env_entry, token_entry

T = TypeVar("T")
STDERR_TAIL = 600  # characters of a failed server's stderr quoted in the message
HTTP_TIMEOUT_S = 30.0  # connect, write, pool
HTTP_READ_TIMEOUT_S = 300.0
MAX_PAGES = 50  # of a tool listing: a server that pages forever cannot hang a run


class McpServerError(Exception):
    """An external server failed; `message` names it and what failed, `hint` what to do."""

    def __init__(self, server: McpServer, what: str, hint: str) -> None:
        self.what = what  # without the server's name and address
        self.message = f"MCP server {server.name!r} ({server.target()}): {what}"
        self.hint = hint
        super().__init__(f"{self.message} {hint}".strip())


@dataclass(frozen=True)
class Listing:
    """What a server offers, as found by one connection."""

    tools: list[Tool]
    instructions: str = ""
    server_info: str = ""  # "name version" as the server reports itself
    protocol: str = ""
    problems: list[str] = field(default_factory=list)


async def listing_of(client: Client) -> Listing:
    """Every tool `client`'s server lists (all pages), and what it says about itself."""
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    info = client.server_info
    return Listing(
        tools=tools,
        instructions=client.instructions or "",
        server_info=" ".join(filter(None, [info.name, info.version])) if info else "",
        protocol=client.protocol_version,
    )


async def list_tools_once(server: McpServer, workspace: Path) -> Listing:
    """Start or reach the server afresh, handshake, list its tools and close, within its
    timeout: what doctor and the view's Test button do (the agent's runs keep a session:
    sessions.py)."""
    return await one_off(server, workspace, server.timeout_s, "listing its tools", listing_of)


async def one_off(
    server: McpServer,
    workspace: Path,
    limit_s: float,
    doing: str,
    work: Callable[[Client], Awaitable[T]],
) -> T:
    """`work` on a session of its own, opened and closed here, all within `limit_s`."""
    # the whole session under one deadline: anyio's scopes must nest, so the deadline cannot
    # cover the handshake alone
    statuses: list[int] = []  # HTTP error statuses seen (the SDK keeps only a generic error)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(limit_s):
                async with open_client(server, workspace, errlog, statuses) as client:
                    return await work(client)
        except McpServerError:
            raise
        except Exception as error:  # the SDK and its transports raise many kinds
            raise explained(server, doing, error, tail(errlog), limit_s, statuses) from error


def open_client(server: McpServer, workspace: Path, errlog: TextIO, statuses: list[int]) -> Client:
    """An SDK client for `server`, not yet entered: a stdio server writes its stderr to
    `errlog`; an HTTP server's error statuses are noted in `statuses`."""
    if server.url:
        return Client(_http_transport(server, statuses))
    parameters = StdioServerParameters(
        command=server.command,
        args=list(server.args),
        env={**server.env, **_secret_env(server)} or None,
        cwd=working_folder(server, workspace),
    )
    return Client(stdio_client(parameters, errlog=errlog))


def working_folder(server: McpServer, workspace: Path) -> Path:
    """Where a stdio server starts: its `cwd`, else the workspace."""
    return Path(os.path.expanduser(server.cwd)) if server.cwd else workspace


def _http_transport(server: McpServer, statuses: list[int]) -> Any:
    try:  # a server may need no token: without a keyring, try without one
        token = get_secret(token_entry(server.name))
    except SecretUnavailable:
        token = None
    headers = {"Authorization": f"Bearer {token}"} if token else None

    async def note_status(response: httpx2.Response) -> None:
        if response.status_code >= 400:
            statuses.append(response.status_code)

    # the SDK's own timeouts (a response stream may stay open for minutes)
    http = httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(HTTP_TIMEOUT_S, read=HTTP_READ_TIMEOUT_S),
        event_hooks={"response": [note_status]},
    )
    return _OwnedHttp(server.url, http)


class _OwnedHttp:
    """streamable_http_client over an HTTP client of ours (for the token header), closed with it
    (the SDK leaves a client it was given open)."""

    def __init__(self, url: str, http: httpx2.AsyncClient) -> None:
        self._http = http
        self._transport = streamable_http_client(url, http_client=http)

    async def __aenter__(self) -> Any:
        await self._http.__aenter__()
        try:
            return await self._transport.__aenter__()
        except BaseException:
            await self._http.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: Any) -> bool | None:
        try:
            return await self._transport.__aexit__(*exc)
        finally:
            await self._http.__aexit__(None, None, None)


def _secret_env(server: McpServer) -> dict[str, str]:
    found: dict[str, str] = {}
    for variable in server.secret_env:
        entry = secret_env_entry(server.name, variable)
        value = _secret(server, entry)
        if not value:
            raise McpServerError(
                server,
                f"no value for {variable} in {where(entry)}",
                f"Store it with `keyring set {SERVICE} '{entry}'`, or remove {variable} from "
                "the server's secret_env.",
            )
        found[variable] = value
    return found


def _secret(server: McpServer, entry: str) -> str | None:
    try:
        return get_secret(entry)
    except SecretUnavailable as error:
        raise McpServerError(server, "its secret cannot be read", str(error)) from error


def tail(errlog: TextIO) -> str:
    """The last lines a stdio server wrote to its stderr."""
    try:
        errlog.seek(0)
        text = errlog.read()
    except (OSError, ValueError):
        return ""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines)[-STDERR_TAIL:]


def explained(
    server: McpServer,
    doing: str,
    error: BaseException,
    stderr: str,
    limit_s: float,
    statuses: list[int],
) -> McpServerError:
    """The failure in words: which step, why, and what the person can do about it."""
    error = _innermost(error)
    if statuses and isinstance(error, MCPError):  # what the SDK reduced to a generic error
        return _http_status(server, statuses[-1])
    said = f" Its last output: {stderr}" if stderr else ""
    if isinstance(error, TimeoutError):
        return McpServerError(
            server,
            f"no answer within {limit_s:g} s while {doing}.{said}",
            "Check that it starts by hand and speaks MCP; raise timeout_s if it is slow.",
        )
    if isinstance(error, FileNotFoundError | PermissionError) and server.transport == "stdio":
        return McpServerError(
            server,
            f"cannot start {server.command!r}: {error.strerror or error}.",
            "Check the command (an absolute path, or a program on PATH) and that it is executable.",
        )
    if isinstance(error, httpx2.HTTPStatusError):
        return _http_status(server, error.response.status_code)
    if isinstance(error, httpx2.TransportError):
        return McpServerError(
            server,
            f"cannot reach it ({type(error).__name__}: {error}).",
            "Check the URL and that the server is running.",
        )
    if (
        isinstance(error, MCPError)
        and error.code == CONNECTION_CLOSED
        and doing.startswith("calling")
    ):
        return McpServerError(  # it was up when the session started
            server,
            f"the connection was lost while {doing}: {error.message}.{said}",
            "The server may have stopped; the next call starts or reaches it again. A call is "
            "never repeated on its own: check whether this one took effect.",
        )
    if isinstance(error, MCPError):
        return McpServerError(
            server,
            f"the connection failed while {doing}: {error.message}.{said}",
            "Run the command by hand to see whether it starts and speaks MCP over stdio."
            if server.transport == "stdio"
            else "Check that the URL is the server's MCP endpoint (often ending in /mcp).",
        )
    return McpServerError(
        server,
        f"failed while {doing} ({type(error).__name__}: {error}).{said}",
        "Check the server's settings; `workbench --headless doctor` tries it.",
    )


def _http_status(server: McpServer, status: int) -> McpServerError:
    entry = token_entry(server.name)
    if status in (401, 403):
        return McpServerError(
            server,
            f"the server refused access (HTTP {status}): no token, or a wrong one.",
            f"Store its bearer token with `keyring set {SERVICE} '{entry}'`.",
        )
    return McpServerError(
        server,
        f"HTTP {status} from {server.url}.",
        "Check that the URL is the server's MCP endpoint (often ending in /mcp).",
    )


def _innermost(error: BaseException) -> BaseException:
    """The error inside the exception groups anyio's task groups wrap failures in."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
