"""Structured output through every backend, as the judge asks for it: Ollama gets the verdict's
JSON schema as `format`, an OpenAI-compatible server a json_schema `response_format`, and the
reply is read into the verdict. Real langchain clients against FAKE HTTP servers (no model runs
here); the llama.cpp grammar: test_llamacpp_grammar.py, the real embedded model:
test_structured_output_embedded.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from tests.rigs.fake_ollama import FakeOllama
from tests.rigs.local_http import LocalHttpFake, QuietHandler
from workbench.core.settings import Settings
from workbench_plugins.judging.problems.registry import problem_set
from workbench_plugins.judging.scoring.judge import (
    CoverageVerdict,
    JudgeSession,
    Question,
    chat_judge,
)

VERDICT = {"score": 7.5, "comment": "The units are missing."}


class _OpenAIHandler(QuietHandler):
    fake: FakeOpenAI

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.fake.requests.append(body)
        message = {"role": "assistant", "content": self.fake.replies.pop(0)}
        usage = {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}
        reply = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }
        self.send_json(200, reply)


class FakeOpenAI(LocalHttpFake):
    """A FAKE OpenAI-compatible /v1/chat/completions (non-streaming): scripted reply texts."""

    name: ClassVar[str] = "the fake OpenAI-compatible server"
    handler = _OpenAIHandler

    def __init__(self, replies: list[str]) -> None:
        super().__init__()
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []


@pytest.fixture
def ollama(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.url)
        yield fake


def _ask(spec: str) -> tuple[CoverageVerdict | None, JudgeSession]:
    session = JudgeSession(chat_judge(spec, Settings()), problem_set()[0])
    return session.ask(Question("meta", "coverage", "<FA>42 N</FA>"), CoverageVerdict), session


def test_ollama_gets_the_verdicts_schema_as_format_with_fake_ollama_server(ollama) -> None:
    ollama.replies = [{"content": json.dumps(VERDICT)}]
    verdict, session = _ask("ollama:qwen3:4b")
    assert verdict == CoverageVerdict(**VERDICT) and session.failures == []
    [request] = ollama.requests
    assert request["format"]["properties"]["score"]["maximum"] == 10
    assert "tools" not in request or not request["tools"]


def test_openai_compatible_gets_a_json_schema_response_format_with_fake_server() -> None:
    with FakeOpenAI([json.dumps(VERDICT)]) as server:
        verdict, session = _ask(f"openai:judge-model@{server.url}/v1")
    assert verdict == CoverageVerdict(**VERDICT) and session.failures == []
    assert session.calls[0].tokens_in == 120
    [request] = server.requests
    response_format = request["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"]["properties"]["score"]["maximum"] == 10


def test_an_out_of_range_verdict_is_asked_again_once_with_fake_server() -> None:
    too_high = json.dumps({"score": 12, "comment": ""})
    with FakeOpenAI([too_high, json.dumps(VERDICT)]) as server:
        verdict, session = _ask(f"openai:judge-model@{server.url}/v1")
    assert verdict == CoverageVerdict(**VERDICT) and session.calls[0].attempts == 2
    retry_note = server.requests[1]["messages"][-1]["content"]
    assert "could not be read" in retry_note and "CoverageVerdict" in retry_note
