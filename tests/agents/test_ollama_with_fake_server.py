"""The real langchain-ollama client, through our backend, against a FAKE Ollama HTTP server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from tests.rigs.fake_ollama import FakeOllama
from workbench.agents import AgentRuntime, list_ollama_models, make_chat_model
from workbench.agents.events import AgentError, Token
from workbench.agents.toolbridge import tool_schema

TURN = [
    {"tool_calls": [{"name": "transfer_to_sample", "arguments": {"task": "Add 2 and 3."}}]},
    {"tool_calls": [{"name": "sample_add", "arguments": {"a": 2, "b": 3}}]},
    {"content": "The sum is 5.", "prompt_eval_count": 100, "eval_count": 5},
    {"content": "2 + 3 = 5."},
]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.url)
        yield fake


def test_full_turn_with_a_tool_call_with_fake_ollama_server(app, server):
    server.replies = list(TURN)
    runtime = AgentRuntime(app, "ollama:qwen3:4b")
    result = runtime.send_sync("fake", "What is 2 + 3?")

    assert result.status == "done", result.error
    assert result.answer == "2 + 3 = 5."
    [added] = app.store.tool_calls("sample_add")
    assert added["arguments"] == {"a": 2, "b": 3} and added["ok"]
    assert added["caller"] == "agent:sample"
    tokens = "".join(e.text for e in result.events if isinstance(e, Token))
    assert "The sum is 5." in tokens and tokens.endswith("2 + 3 = 5.")

    first, second, third, _ = server.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["transfer_to_sample"]
    assert [t["function"]["name"] for t in second["tools"]] == ["sample_add"]
    assert first["options"]["num_ctx"] == app.settings.ollama.context_size
    assert all(r["stream"] for r in server.requests)
    tool_message = third["messages"][-1]
    assert tool_message["role"] == "tool" and json.loads(tool_message["content"]) == {"total": 5.0}
    # logical tokens as Ollama reported them (prompt_eval_count / eval_count)
    assert result.totals["input_tokens"] == 42 * 3 + 100
    assert result.totals["output_tokens"] == 7 * 3 + 5
    runtime.close()


def test_non_streaming_tool_call_and_model_list_with_fake_ollama_server(app, server):
    server.replies = [{"tool_calls": [{"name": "sample_add", "arguments": {"a": 1, "b": 2}}]}]
    model = make_chat_model("ollama:qwen3:4b", app.settings)
    bound = model.bind_tools([tool_schema(app.registry.get("sample_add"))])
    reply = asyncio.run(bound.ainvoke("add 1 and 2", stream=False))
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("sample_add", {"a": 1, "b": 2})]
    assert server.requests[0]["stream"] is False
    assert reply.usage_metadata["input_tokens"] == 42
    assert list_ollama_models(server.url) == ["qwen3:4b"]


def test_server_killed_mid_stream_then_back_with_fake_ollama_server(app, server):
    server.replies = [{"content": "Let me think about this one", "kill_after": 2}]
    runtime = AgentRuntime(app, "ollama:qwen3:4b")

    broken = runtime.send_sync("flaky", "What is 2 + 3?")
    assert broken.status == "error"
    assert broken.error.startswith(f"Ollama at {server.url} stopped answering mid-reply")
    assert "conversation is kept" in broken.error
    assert not server.running

    still_down = runtime.retry_sync("flaky")
    assert still_down.status == "error"
    assert f"Ollama at {server.url} is not reachable" in still_down.error
    [error] = [e for e in still_down.events if isinstance(e, AgentError)]
    assert error.kind == "model_unreachable"

    server.replies = list(TURN)
    server.restart()
    back = runtime.retry_sync("flaky")
    assert back.status == "done", back.error
    assert back.answer == "2 + 3 = 5."
    transcript = asyncio.run(runtime.transcript("flaky"))
    assert [e["content"] for e in transcript if e["role"] == "user"] == ["What is 2 + 3?"]

    server.replies = [{"content": "Still 5."}]
    assert runtime.send_sync("flaky", "Sure?").answer == "Still 5."
    assert [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"] == [
        "What is 2 + 3?",
        "Sure?",
    ]
    runtime.close()


def test_missing_model_says_to_pull_it_with_fake_ollama_server(app, server):
    runtime = AgentRuntime(app, "ollama:llama9:1b")
    result = runtime.send_sync("missing", "hi")
    assert result.status == "error"
    assert "ollama pull llama9:1b" in result.error
    runtime.close()


def test_doctor_finds_ollama_where_the_chat_does_with_fake_ollama_server(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OLLAMA_HOST as Ollama's clients read it (no scheme: http, no port: 11434 style), and a
    base URL set in settings winning over it: the doctor and the chat agree on the address."""
    from workbench.agents import ollama_base_url
    from workbench.core.doctor import check_ollama

    with FakeOllama() as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.url.removeprefix("http://"))
        found = check_ollama(app)
        assert found.level == "ok" and fake.url in found.detail, found
        assert ollama_base_url(app.settings) == fake.url
        app.settings.ollama.base_url = "http://127.0.0.1:9"  # set by the user: wins
        missing = check_ollama(app)
        assert missing.level == "missing" and "127.0.0.1:9" in missing.detail, missing
        assert ollama_base_url(app.settings) == "http://127.0.0.1:9"
