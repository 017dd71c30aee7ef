"""`workbench --headless mcp --http`: loopback only, a bearer token from the keyring (issue 19,
acceptance 1), driven by the MCP SDK's streamable HTTP client.

One server process for the module, on a free port (client name "acceptance-http"); the token is
the one the server stored in its (file) keyring, never printed unless asked.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from tests.mcp.conftest import (
    LiveClient,
    http_client,
    recorded_call,
    served_url,
    server_env,
    start_http_server,
    stored_token,
    text_of,
)
from workbench.mcp.http import McpHttpServer
from workbench.mcp.loopback import check_loopback

CLIENT = "acceptance-http"
WORKBENCH_MCP = (sys.executable, "-m", "workbench", "--headless", "mcp")
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, list[str]]]:
    """(its data folder, its URL, what it printed); stopped with SIGTERM, which must be clean."""
    home = tmp_path_factory.mktemp("mcp-http") / "home"
    process, printed = start_http_server(home)
    yield home, served_url(printed), printed
    process.send_signal(signal.SIGTERM)
    remaining, _ = process.communicate(timeout=30)
    assert process.returncode == 0 and "Stopped." in remaining


@pytest.fixture(scope="module")
def live(server: tuple[Path, str, list[str]]) -> Iterator[LiveClient]:
    home, url, _ = server
    # the handshake-era protocol of today's MCP clients (stdio's tests use the 2026 one)
    session = LiveClient(lambda: http_client(url, stored_token(home), CLIENT, "legacy")).start()
    yield session
    session.close()


def post(url: str, headers: dict[str, str]) -> httpx2.Response:
    headers = {"Accept": "application/json, text/event-stream", **headers}
    return httpx2.post(url, json=LIST_TOOLS, headers=headers, timeout=30)


def test_requests_without_the_token_or_with_a_wrong_one_get_401(
    server: tuple[Path, str, list[str]],
) -> None:
    home, url, _ = server
    for headers in ({}, {"Authorization": "Bearer not-the-token"}, {"Authorization": "Basic x"}):
        refused = post(url, headers)
        assert refused.status_code == 401, headers
        assert "Bearer" in refused.headers["www-authenticate"]
        assert "--show-token" in refused.json()["error_description"]
    admitted = post(url, {"Authorization": f"Bearer {stored_token(home)}"})
    assert admitted.status_code != 401

    statuses: list[int] = []

    async def note(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    async def with_wrong_token() -> None:
        wrong = {"Authorization": "Bearer not-the-token"}
        async with (
            httpx2.AsyncClient(headers=wrong, event_hooks={"response": [note]}) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            await client.list_tools()

    with pytest.raises(Exception, match="unhandled errors"):  # the SDK client cannot connect
        asyncio.run(with_wrong_token())
    assert statuses and set(statuses) == {401}


def test_the_token_stays_in_the_keyring_and_is_printed_only_when_asked(
    server: tuple[Path, str, list[str]],
) -> None:
    home, _, printed = server
    token = stored_token(home)
    assert len(token) >= 40
    assert not any(token in line for line in printed)
    assert "entry 'mcp-token'" in "\n".join(printed)
    assert token not in (home / "server-stderr.txt").read_text()
    assert all(token not in path.read_text() for path in (home / "config").rglob("*.toml"))
    shown = subprocess.run(
        [*WORKBENCH_MCP, "--show-token"],
        capture_output=True,
        text=True,
        env=server_env(home),
        timeout=120,
    )
    assert shown.returncode == 0 and shown.stdout.strip() == token


def test_lists_tools_and_optimizes_over_http(
    live: LiveClient, server: tuple[Path, str, list[str]]
) -> None:
    assert live.client is not None
    assert live.client.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS  # as Claude Code speaks
    listed = live.run(lambda client: client.list_tools())
    assert {"optimize_design", "submit_candidate", "connect_printer"} <= {
        tool.name for tool in listed.tools
    }
    arguments = {"problem_type": "beams2d", "problem_config": {"max_iter": 3}, "save_result": False}
    result = live.run(lambda client: client.call_tool("optimize_design", arguments))
    assert not result.is_error, text_of(result)
    assert result.structured_content["optimization_info"]["steps"] == 3
    record = recorded_call(server[0], result.meta["workbench/call_id"])
    assert record["caller"] == f"mcp:{CLIENT}" and record["ok"] is True


def test_a_physical_tool_is_refused_over_http_and_the_refusal_recorded(
    live: LiveClient, server: tuple[Path, str, list[str]]
) -> None:
    arguments = {"printer": "/dev/ttyWORKBENCH-NONE"}
    result = live.run(lambda client: client.call_tool("connect_printer", arguments))
    assert result.is_error and result.meta["workbench/error_kind"] == "confirmation_required"
    assert "acts on the physical world" in text_of(result) and "--approve" in text_of(result)
    record = recorded_call(server[0], result.meta["workbench/call_id"])
    assert record["caller"] == f"mcp:{CLIENT}" and record["tool"] == "connect_printer"
    assert record["ok"] is False and record["error"]["kind"] == "confirmation_required"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_non_loopback_bind_is_refused_with_exit_2_and_nothing_listens(tmp_path: Path) -> None:
    port = free_port()
    refused = subprocess.run(
        [*WORKBENCH_MCP, "--http", "--host", "0.0.0.0", "--port", str(port)],
        capture_output=True,
        text=True,
        env=server_env(tmp_path / "home"),
        timeout=120,
    )
    assert refused.returncode == 2
    assert "only listens on this machine's loopback address" in refused.stderr
    assert "'0.0.0.0'" in refused.stderr and not refused.stdout
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "example.com", ""])
def test_only_loopback_hosts_are_accepted(host: str) -> None:
    with pytest.raises(ValueError, match="loopback"):
        check_loopback(host)


@pytest.mark.parametrize(
    ("host", "bound"),
    [("127.0.0.1", "127.0.0.1"), ("localhost", "127.0.0.1"), ("::1", "::1"), ("[::1]", "::1")],
)
def test_loopback_hosts_are_bound_as_addresses(host: str, bound: str) -> None:
    assert check_loopback(host) == bound


def test_the_server_in_a_callers_loop_starts_serves_and_stops(context: Any) -> None:
    """What the desktop app does: McpHttpServer in its own loop, then stop() frees the port."""

    async def serve_once() -> tuple[str, list[str]]:
        server = McpHttpServer(context, port=0, token="in-process-token")
        url = await server.start()
        try:
            async with http_client(url, "in-process-token", "in-process") as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
        finally:
            await server.stop()
        return url, names

    url, names = asyncio.run(serve_once())
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    assert "optimize_design" in names
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))
    with pytest.raises(ValueError, match="loopback"):
        McpHttpServer(context, host="0.0.0.0", token="x")
