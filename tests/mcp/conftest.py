"""Real `workbench --headless mcp` processes and real MCP SDK clients for the MCP server tests.

A server process gets its own WORKBENCH_HOME and a keyring kept in a JSON file there
(`FileKeyring`), so the test reads the token the server stored, as a user's `keyring get` would.
An MCP session is held open across a module's tests by `LiveClient`: its own event loop in a
thread, so the expensive server start happens once per module.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import mcp_types as types
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from workbench.core.store import Store

ROOT = Path(__file__).resolve().parents[2]
KEYRING_FILE_VARIABLE = "WORKBENCH_TEST_KEYRING_FILE"
HTTP_ON_ANY_PORT = ("--http", "--port", "0")
T = TypeVar("T")


class FileKeyring(KeyringBackend):
    """A keyring in the JSON file named by $WORKBENCH_TEST_KEYRING_FILE (tests only)."""

    priority = 1  # type: ignore[assignment]

    def _path(self) -> Path:
        return Path(os.environ[KEYRING_FILE_VARIABLE])

    def _read(self) -> dict[str, str]:
        path = self._path()
        return json.loads(path.read_text()) if path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._read().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        secrets = self._read()
        secrets[f"{service}/{username}"] = password
        self._path().write_text(json.dumps(secrets))

    def delete_password(self, service: str, username: str) -> None:
        secrets = self._read()
        if secrets.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError(username)
        self._path().write_text(json.dumps(secrets))


def server_env(home: Path) -> dict[str, str]:
    """The environment of a server process on its own data folder and file keyring."""
    return {
        **os.environ,
        "WORKBENCH_HOME": str(home),
        "PYTHON_KEYRING_BACKEND": f"{__name__}.FileKeyring",
        KEYRING_FILE_VARIABLE: str(home / "keyring.json"),
        "OLLAMA_HOST": "http://127.0.0.1:9",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }


def stored_token(home: Path) -> str:
    secrets = json.loads((home / "keyring.json").read_text())
    token: str = secrets["workbench/mcp-token"]
    return token


def workspace_calls(home: Path) -> list[dict[str, Any]]:
    """The tool calls recorded in the server's workspace store (read beside the server)."""
    store = Store(home / "data" / "workspace")
    try:
        return [dict(record) for record in store.tool_calls()]
    finally:
        store.close()


def recorded_call(home: Path, call_id: int) -> dict[str, Any]:
    return next(record for record in workspace_calls(home) if record["id"] == call_id)


def stdio_parameters(home: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "workbench", "--headless", "mcp", *flags],
        env=server_env(home),
    )


def identity(name: str) -> types.Implementation:
    return types.Implementation(name=name, version="1.0")


@asynccontextmanager
async def http_client(url: str, token: str, name: str, mode: str = "auto") -> AsyncIterator[Client]:
    """`mode="legacy"`: the initialize handshake of 2025 clients (Claude Code, Cursor); "auto":
    the SDK's 2026 protocol where the server offers it."""
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(
            streamable_http_client(url, http_client=http), client_info=identity(name), mode=mode
        ) as client,
    ):
        yield client


class LiveClient:
    """An MCP client session open across tests: `run(lambda client: ...)` from any test."""

    def __init__(self, connect: Callable[[], AbstractAsyncContextManager[Client]]) -> None:
        self._connect = connect
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._stop: asyncio.Event | None = None
        self.client: Client | None = None
        self._thread = threading.Thread(target=self._main, name="mcp-test-client", daemon=True)

    def start(self, timeout: float = 120.0) -> LiveClient:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the MCP session did not open within {timeout} s")
        if self._failure is not None:
            raise RuntimeError(f"the MCP session did not open: {self._failure}")
        return self

    def _main(self) -> None:
        self._loop.run_until_complete(self._session())

    async def _session(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with self._connect() as client:
                self.client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as failure:  # handed to the test that waits in start()
            self._failure = failure
            self._ready.set()

    def run(self, action: Callable[[Client], Awaitable[T]], timeout: float = 180.0) -> T:
        if self.client is None:
            raise RuntimeError("the MCP session is not open")
        client = self.client

        async def act() -> T:
            return await action(client)

        return asyncio.run_coroutine_threadsafe(act(), self._loop).result(timeout)

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


def eventually(condition: Callable[[], T | None], timeout: float) -> T:
    """The first true value of `condition`, polled until `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {condition.__name__}")
        time.sleep(0.2)


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def start_http_server(home: Path, *flags: str) -> tuple[subprocess.Popen[str], list[str]]:
    """`workbench --headless mcp --http --port 0 ...`, once it says it serves: (process, the
    lines it printed up to "Serving until")."""
    home.mkdir(parents=True, exist_ok=True)
    with (home / "server-stderr.txt").open("w") as stderr:  # a file: a pipe could fill up
        process = subprocess.Popen(
            [sys.executable, "-m", "workbench", "--headless", "mcp", *HTTP_ON_ANY_PORT, *flags],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=server_env(home),
        )
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("Serving until"):
            return process, lines
    process.wait(timeout=30)
    errors = (home / "server-stderr.txt").read_text()
    raise RuntimeError(f"the MCP HTTP server did not start: {lines} {errors[-2000:]}")


def served_url(lines: list[str]) -> str:
    return next(line.split(" at ", 1)[1] for line in lines if line.startswith("Serving "))
