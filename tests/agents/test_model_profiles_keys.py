"""A profile's key reaches only its own server, and its temperature and seed reach the request.

Local listeners on 127.0.0.1 (FAKE OpenAI-compatible servers: real HTTP, the real OpenAI client)
record the Authorization header and the body of every request they get.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from tests.rigs.fake_ollama import FakeOllama
from tests.rigs.local_http import LocalHttpFake, QuietHandler
from workbench.agents import BackendError, make_chat_model
from workbench.agents.llamacpp import LlamaCppChatModel
from workbench.core import secrets
from workbench.core.settings import Settings

COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "qwen",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
}


class _RecordingHandler(QuietHandler):
    fake: ClassVar[RecordingServer]

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.fake.seen.append((self.headers.get("Authorization", ""), body))
        self.send_json(200, COMPLETION)

    def do_GET(self) -> None:
        self.fake.seen.append((self.headers.get("Authorization", ""), {"path": self.path}))
        self.send_json(200, {"object": "list", "data": [{"id": "qwen", "object": "model"}]})


class RecordingServer(LocalHttpFake):
    name = "a FAKE OpenAI-compatible server"
    handler = _RecordingHandler

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, dict[str, Any]]] = []

    @property
    def keys(self) -> list[str]:
        return [authorization for authorization, _ in self.seen]


@pytest.fixture
def servers() -> Iterator[tuple[RecordingServer, RecordingServer]]:
    with RecordingServer() as first, RecordingServer() as second:
        yield first, second


def profile(name: str, url: str, **more: Any) -> dict[str, Any]:
    return {"name": name, "kind": "openai-compatible", "model": "qwen", "base_url": url, **more}


def test_a_profile_key_reaches_its_own_server_and_no_other(servers) -> None:
    lab, attacker = servers
    settings = Settings(model_profiles=[profile("lab", f"{lab.url}/v1")])
    secrets.set_secret("model:lab:api_key", "sk-lab-secret")
    secrets.set_secret("openai:api_key", "sk-openai-secret")

    make_chat_model("lab", settings).invoke("hello")
    # a full spec naming another server (a person's --model) gets neither stored key
    make_chat_model(f"openai:qwen@{attacker.url}/v1", settings).invoke("hello")

    assert lab.keys == ["Bearer sk-lab-secret"]
    assert attacker.keys == ["Bearer not-needed"]


def test_a_spec_at_a_profiles_server_uses_that_profiles_key_or_the_runs_env(
    servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    lab, other = servers
    settings = Settings(model_profiles=[profile("lab", f"{lab.url}/v1")])
    secrets.set_secret("model:lab:api_key", "sk-lab-secret")
    make_chat_model(f"openai:qwen@{lab.url}/v1/", settings).invoke("hello")
    monkeypatch.setenv("WORKBENCH_MODEL_API_KEY", "sk-for-this-run")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-env")  # the OpenAI API's, not this server's
    make_chat_model(f"openai:qwen@{other.url}/v1", settings).invoke("hello")
    assert lab.keys == ["Bearer sk-lab-secret"]
    assert other.keys == ["Bearer sk-for-this-run"]


def test_two_openai_compatible_profiles_each_send_their_own_key(servers) -> None:
    first, second = servers
    settings = Settings(
        model_profiles=[profile("one", f"{first.url}/v1"), profile("two", f"{second.url}/v1")]
    )
    secrets.set_secret("model:one:api_key", "sk-one")
    secrets.set_secret("model:two:api_key", "sk-two")
    for name in ("one", "two", "one"):
        make_chat_model(name, settings).invoke("hello")
    assert first.keys == ["Bearer sk-one", "Bearer sk-one"]
    assert second.keys == ["Bearer sk-two"]


def test_temperature_and_seed_reach_the_request_body(servers) -> None:
    server, _ = servers
    settings = Settings(
        model_profiles=[
            profile("plain", f"{server.url}/v1"),
            profile("warm", f"{server.url}/v1", temperature=0.7, seed=42),
        ]
    )
    make_chat_model("plain", settings).invoke("hello")
    make_chat_model("warm", settings).invoke("hello")
    plain, warm = (body for _, body in server.seen)
    assert (plain["temperature"], plain["seed"]) == (0.0, 0)  # reproducible by default
    assert (warm["temperature"], warm["seed"]) == (0.7, 42)


def test_an_ollama_profile_sends_temperature_and_seed_as_options() -> None:
    with FakeOllama([{"content": "ok"}, {"content": "ok"}]) as ollama:
        settings = Settings(
            model_profiles=[
                {"name": "local", "kind": "ollama", "model": "qwen3:4b", "base_url": ollama.url},
                {
                    "name": "hot",
                    "kind": "ollama",
                    "model": "qwen3:4b",
                    "base_url": ollama.url,
                    "temperature": 1.0,
                    "seed": 7,
                    "context_length": 4096,
                },
            ]
        )
        make_chat_model("local", settings).invoke("hello")
        make_chat_model("hot", settings).invoke("hello")
        local, hot = (request["options"] for request in ollama.requests)
    assert (local["temperature"], local["seed"]) == (0.0, 0)
    assert (hot["temperature"], hot["seed"], hot["num_ctx"]) == (1.0, 7, 4096)


def test_the_openai_api_without_its_key_says_which_entry() -> None:
    settings = Settings(
        model_profiles=[{"name": "gpt", "kind": "openai-compatible", "model": "gpt-4o-mini"}]
    )
    with pytest.raises(BackendError, match="model:gpt:api_key"):
        make_chat_model("gpt", settings)


class _RecordingFakeLlama:
    """A FAKE llama_cpp.Llama (no model file needed): records what the backend asks for."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def create_chat_completion(self, **arguments: Any) -> dict[str, Any]:
        self.asked.append(arguments)
        return {"choices": [{"message": {"content": "ok"}}], "usage": {}}


def test_llamacpp_gets_the_profiles_temperature_with_a_recording_fake_llama() -> None:
    fake = _RecordingFakeLlama()
    LlamaCppChatModel(llama=fake, temperature=0.0).invoke("hello")
    LlamaCppChatModel(llama=fake, temperature=0.4, seed=3).invoke("hello")
    assert [asked["temperature"] for asked in fake.asked] == [0.0, 0.4]
