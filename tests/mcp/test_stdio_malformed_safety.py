"""Malformed lines to `workbench --headless mcp` (stdio) get JSON-RPC 2.0 error answers (issue 28).

A line that is not JSON gets -32700 (parse error) and JSON that is not a request gets -32600
(invalid request), with id null unless the request's id can be read; the server then goes on
serving. Driven through the real command over its stdin and stdout, as a client would.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import server_env

ANSWER_WAIT_S = 120.0  # the first answer waits for the server's start (imports, plugins)
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 9,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "malformed-lines", "version": "1.0"},
    },
}


class StdioServer:
    """`workbench --headless mcp` with its stdout read line by line in a thread."""

    def __init__(self, home: Path) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.stderr = (home / "server-stderr.txt").open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "workbench", "--headless", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            env=server_env(home),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def answer(self) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(self.lines.get(timeout=ANSWER_WAIT_S))
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()  # end of input: the server ends
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StdioServer]:
    running = StdioServer(tmp_path_factory.mktemp("mcp-malformed") / "home")
    yield running
    running.close()


@pytest.mark.parametrize("line", ["{not json", '{"jsonrpc": "2.0", "id": 1, "method": "tools/li'])
def test_a_line_that_is_not_json_gets_a_parse_error(server: StdioServer, line: str) -> None:
    server.send(line)
    answer = server.answer()
    assert answer["jsonrpc"] == "2.0" and answer["id"] is None
    assert answer["error"]["code"] == -32700


@pytest.mark.parametrize(
    ("line", "answered_id"),
    [
        ("[]", None),
        ("42", None),
        ('{"foo": 1}', None),
        ('{"jsonrpc": "2.0", "id": 5, "method": 7}', 5),
        ('{"jsonrpc": "1.0", "id": "x", "method": "ping"}', "x"),
    ],
)
def test_json_that_is_not_a_request_gets_an_invalid_request_error(
    server: StdioServer, line: str, answered_id: object
) -> None:
    server.send(line)
    answer = server.answer()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == answered_id
    assert answer["error"]["code"] == -32600


def test_the_server_goes_on_serving_after_malformed_lines(server: StdioServer) -> None:
    server.send("}{")
    assert server.answer()["error"]["code"] == -32700
    server.send(json.dumps(INITIALIZE))
    answer = server.answer()
    assert answer["id"] == 9 and answer["result"]["serverInfo"]["name"] == "workbench"
