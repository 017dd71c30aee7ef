"""The FAKE Ollama server (tests/rigs/fake_ollama.py) with real-looking model sizes in /api/tags
and the OpenAI-compatible model list real Ollama also serves (/v1/models), for the model picker's
"server up with models" and "an OpenAI-compatible endpoint that answers" cases."""

from __future__ import annotations

import threading
from typing import Any

from tests.rigs.fake_ollama import FakeOllama, _Handler, _Server


class SizedOllama(FakeOllama):
    def __init__(self, sizes: dict[str, int]) -> None:
        super().__init__(models=list(sizes))
        self.sizes = dict(sizes)

    def start(self) -> SizedOllama:
        rig = self

        class Handler(_SizedHandler):
            fake = rig

        self._server = _Server(("127.0.0.1", self.port), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self


class _SizedHandler(_Handler):
    fake: SizedOllama

    def do_GET(self) -> None:
        if self.path == "/api/tags":
            models: list[dict[str, Any]] = [
                {"name": name, "model": name, "size": size, "details": {"format": "gguf"}}
                for name, size in self.fake.sizes.items()
            ]
            self._json(200, {"models": models})
        elif self.path == "/v1/models":
            data = [{"id": name, "object": "model"} for name in self.fake.sizes]
            self._json(200, {"object": "list", "data": data})
        else:
            super().do_GET()
