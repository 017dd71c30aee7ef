"""The FAKE Ollama server (tests/rigs/fake_ollama.py) with real-looking model sizes in /api/tags
and the OpenAI-compatible model list real Ollama also serves (/v1/models), for the model picker's
"server up with models" and "an OpenAI-compatible endpoint that answers" cases."""

from __future__ import annotations

from typing import Any

from tests.rigs.fake_ollama import FakeOllama, _Handler


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


class SizedOllama(FakeOllama):
    handler = _SizedHandler

    def __init__(self, sizes: dict[str, int]) -> None:
        super().__init__(models=list(sizes))
        self.sizes = dict(sizes)
