"""Fixtures for the external-MCP-servers tests: the REAL test server (tests/rigs/mcp_test_server.py,
written with the mcp SDK) configured in the app's settings, over stdio (a subprocess per session)
or streamable HTTP (one subprocess per module, behind a bearer token)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from workbench.core.context import AppContext
from workbench_plugins.mcp_servers import specialists as hook
from workbench_plugins.mcp_servers.config import McpServer, McpServersSettings

SERVER_MODULE = "tests.rigs.mcp_test_server"
HTTP_TOKEN = "test-token-for-the-mcp-rig"


def stdio_server(name: str = "bench", **fields: object) -> McpServer:
    """The test server over stdio (started from the checkout, so `-m tests.rigs...` imports)."""
    values: dict[str, object] = {
        "name": name,
        "description": "Beam calculations and the lab's motion stage",
        "command": sys.executable,
        "args": ["-m", SERVER_MODULE],
        "cwd": str(ROOT),
    }
    return McpServer.model_validate({**values, **fields})


def configure(context: AppContext, *servers: McpServer) -> None:
    settings = McpServersSettings(servers=list(servers))
    context.settings = context.settings.with_plugin("mcp_servers", settings)


@pytest.fixture(autouse=True)
def fresh_listings() -> Iterator[None]:
    """Each test connects for itself (listings are otherwise kept for the process)."""
    hook.forget()
    yield
    hook.forget()


@pytest.fixture
def stage_log(tmp_path: Path) -> Path:
    """The file the test server appends each move_stage call to."""
    return tmp_path / "stage.log"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """The test server on streamable HTTP (127.0.0.1, a bearer token); yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", SERVER_MODULE, "--http", str(port), "--token", HTTP_TOKEN],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the MCP test server did not start on HTTP") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
