"""A FAKE Ollama server (stdlib http.server on 127.0.0.1) for testing the real langchain-ollama
client: language models cannot run here, the HTTP protocol can.

Speaks /api/chat (NDJSON streaming with chunked encoding, and non-streaming JSON; tool calls as
`message.tool_calls[].function.arguments` JSON objects; every line has `message.role`; the
`done: true` line carries prompt_eval_count/eval_count), /api/embed, /api/tags and /api/version.
Embeddings hash words into 64 buckets: crude but deterministic, enough to show that dense
vectors are stored, searched by cosine and fused with keyword ranks. Each /api/chat
request consumes the next scripted reply. A reply with "kill_after": n sends n lines and then kills
the whole server mid-stream (sockets closed, port refusing) until `restart()`.

    with FakeOllama([{"content": "hi"}]) as server:
        ChatOllama(model="m", base_url=server.url).invoke("hello")
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import socket
import threading
import time
from typing import Any

from tests.rigs.local_http import LocalHttpFake, QuietHandler

EMBEDDING_DIMENSIONS = 64


def embed(text: str) -> list[float]:
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in re.findall(r"\w+", text.lower()):
        vector[hashlib.sha256(word.encode()).digest()[0] % EMBEDDING_DIMENSIONS] += 1.0
    return vector


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000000Z", time.gmtime())


def chat_lines(model: str, reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The NDJSON lines Ollama streams for one reply."""
    lines = []
    words = str(reply.get("content", "")).split(" ")
    for index, word in enumerate(words):
        if not word and index:
            continue
        lines.append(
            {
                "model": model,
                "created_at": _stamp(),
                "message": {"role": "assistant", "content": word if index == 0 else " " + word},
                "done": False,
            }
        )
    if reply.get("tool_calls"):
        lines.append(
            {
                "model": model,
                "created_at": _stamp(),
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"function": {"name": c["name"], "arguments": c.get("arguments", {})}}
                        for c in reply["tool_calls"]
                    ],
                },
                "done": False,
            }
        )
    lines.append(
        {
            "model": model,
            "created_at": _stamp(),
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "load_duration": 1000,
            "prompt_eval_count": reply.get("prompt_eval_count", 42),
            "prompt_eval_duration": 1000,
            "eval_count": reply.get("eval_count", 7),
            "eval_duration": 1000,
        }
    )
    return lines


def merged(model: str, reply: dict[str, Any]) -> dict[str, Any]:
    """The single JSON object of a non-streaming reply."""
    lines = chat_lines(model, reply)
    final = dict(lines[-1])
    message = {"role": "assistant", "content": str(reply.get("content", ""))}
    for line in lines:
        if "tool_calls" in line["message"]:
            message["tool_calls"] = line["message"]["tool_calls"]
    final["message"] = message
    return final


class _Handler(QuietHandler):
    fake: FakeOllama
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        with self.fake._lock:
            self.fake._connections.add(self.connection)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        with self.fake._lock:
            self.fake._connections.discard(self.connection)

    def _json(self, status: int, body: dict[str, Any]) -> None:
        self.send_json(status, body, "application/json; charset=utf-8")

    def do_GET(self) -> None:
        self.fake.paths.append(self.path)
        if self.path == "/api/version":
            self._json(200, {"version": "0.9.0-fake"})
        elif self.path == "/api/tags":
            models = [
                {
                    "name": name,
                    "model": name,
                    "modified_at": _stamp(),
                    "size": 1,
                    "digest": "0" * 64,
                    "details": {"format": "gguf", "family": "fake"},
                }
                for name in self.fake.models
            ]
            self._json(200, {"models": models})
        else:
            self._json(404, {"error": f"{self.path} not found"})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.fake.paths.append(self.path)
        if self.path == "/api/embed":
            self._embed(body)
            return
        if self.path != "/api/chat":
            self._json(404, {"error": f"{self.path} not found"})
            return
        self.fake.requests.append(body)
        model = body.get("model", "")
        if model not in self.fake.models:
            self._json(404, {"error": f"model '{model}' not found"})
            return
        reply = self.fake.next_reply()
        if not body.get("stream", True):
            self._json(200, merged(model, reply))
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        kill_after = reply.get("kill_after")
        for sent, line in enumerate(chat_lines(model, reply)):
            if kill_after is not None and sent >= kill_after:
                self.wfile.flush()
                self.fake.kill()  # cuts this connection too, mid-body
                return
            data = (json.dumps(line) + "\n").encode()
            self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _embed(self, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        if model not in self.fake.models and f"{model}:latest" not in self.fake.models:
            self._json(404, {"error": f"model '{model}' not found"})
            return
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        self._json(200, {"model": model, "embeddings": [embed(t) for t in texts]})


class FakeOllama(LocalHttpFake):
    name = "the fake Ollama"
    handler = _Handler

    def __init__(self, replies: list[dict[str, Any]] | None = None, models: list[str] = ()) -> None:
        super().__init__()
        self.replies: list[dict[str, Any]] = list(replies or [])
        self.models = list(models) or ["qwen3:4b"]
        self.requests: list[dict[str, Any]] = []  # /api/chat bodies
        self.paths: list[str] = []  # every path asked for, in order
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def url(self) -> str:  # also once killed: the port that now refuses
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Stop at once: no more connections, and open ones are cut (no clean end of stream)."""
        if not self.running:
            return
        super().stop()
        with self._lock:
            for connection in list(self._connections):
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                connection.close()
            self._connections.clear()

    def kill(self) -> None:
        self.stop()

    def restart(self) -> FakeOllama:
        """Come back on the same port (an `ollama serve` restarted)."""
        self.kill()
        return self.start()

    def next_reply(self) -> dict[str, Any]:
        with self._lock:
            if not self.replies:
                return {"content": "(the fake Ollama server has no scripted reply left)"}
            return self.replies.pop(0)
