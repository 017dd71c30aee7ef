"""A local stand-in for Ollama's embedding API (/api/tags, /api/embed), for the real client.

It embeds by hashing words into 64 buckets: a crude but deterministic model, enough to show
that dense vectors are stored, searched by cosine and fused with keyword ranks.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSIONS = 64


def embed(text: str) -> list[float]:
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"\w+", text.lower()):
        vector[hashlib.sha256(word.encode()).digest()[0] % DIMENSIONS] += 1.0
    return vector


class _Handler(BaseHTTPRequestHandler):
    calls: list[str]

    def log_message(self, *_: object) -> None:
        pass

    def _answer(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.calls.append(self.path)
        if self.path == "/api/tags":
            self._answer({"models": [{"name": "nomic-embed-text:latest"}]})
        else:
            self.send_error(404)

    def do_POST(self) -> None:
        self.calls.append(self.path)
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/api/embed" or not request["model"].startswith("nomic-embed-text"):
            self.send_error(404)
            return
        texts = request["input"] if isinstance(request["input"], list) else [request["input"]]
        self._answer({"model": request["model"], "embeddings": [embed(t) for t in texts]})


@contextmanager
def running_fake_ollama() -> Iterator[tuple[str, list[str]]]:
    """(base URL, the paths it was asked for)."""
    calls: list[str] = []
    handler = type("Handler", (_Handler,), {"calls": calls})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", calls
    finally:
        server.shutdown()
        server.server_close()
