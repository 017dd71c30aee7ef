"""A local stand-in for Ollama's embedding API (/api/tags, /api/embed), for the real client.

It embeds by hashing words into 64 buckets: a crude but deterministic model, enough to show
that dense vectors are stored, searched by cosine and fused with keyword ranks.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

from tests.rigs.local_http import LocalHttpFake, QuietHandler

DIMENSIONS = 64


def embed(text: str) -> list[float]:
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"\w+", text.lower()):
        vector[hashlib.sha256(word.encode()).digest()[0] % DIMENSIONS] += 1.0
    return vector


class _Handler(QuietHandler):
    fake: _EmbeddingOllama

    def do_GET(self) -> None:
        self.fake.calls.append(self.path)
        if self.path == "/api/tags":
            self.send_json(200, {"models": [{"name": "nomic-embed-text:latest"}]})
        else:
            self.send_error(404)

    def do_POST(self) -> None:
        self.fake.calls.append(self.path)
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path != "/api/embed" or not request["model"].startswith("nomic-embed-text"):
            self.send_error(404)
            return
        texts = request["input"] if isinstance(request["input"], list) else [request["input"]]
        self.send_json(200, {"model": request["model"], "embeddings": [embed(t) for t in texts]})


class _EmbeddingOllama(LocalHttpFake):
    name = "the fake embedding Ollama"
    handler = _Handler

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []


@contextmanager
def running_fake_ollama() -> Iterator[tuple[str, list[str]]]:
    """(base URL, the paths it was asked for)."""
    with _EmbeddingOllama() as fake:
        yield fake.url, fake.calls
