"""Tools served to agents and MCP clients take a model only as a profile's name: a URL or a file
given as `grade_solution`'s judge_model or `start_modelica_task`'s model_name is refused through
the registry (the path an MCP client's call takes), and no key leaves for the named server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.agents.test_model_profiles_keys import RecordingServer
from workbench.core import secrets

GRADE = {"problem_id": "thermal_wall-s2", "solution_text": "q = k A dT / L = 120 W"}


@pytest.fixture
def listener(context: Any) -> Iterator[RecordingServer]:
    """A caller's server, and the person's keys stored as they would be."""
    secrets.set_secret("openai:api_key", "sk-openai-secret")
    secrets.set_secret("model:lab:api_key", "sk-lab-secret")
    context.settings.model_profiles = [
        {"name": "lab", "kind": "openai-compatible", "model": "q", "base_url": "http://lab/v1"}
    ]
    with RecordingServer() as server:
        yield server


def refused(outcome: Any, said: str) -> str:
    assert not outcome.ok and outcome.error.kind == "failed", outcome
    explained = outcome.error.explain()
    assert said in explained and "Configured model profiles: lab" in explained
    return str(explained)


def test_grade_solution_refuses_a_judge_at_a_url(context: Any, listener: RecordingServer) -> None:
    judge = f"openai:gpt-4o-mini@{listener.url}/v1"
    outcome = context.registry.call("grade_solution", {**GRADE, "judge_model": judge}, caller="mcp")
    refused(outcome, "server address")
    assert listener.seen == []  # not one request, so no key


@pytest.mark.parametrize("judge", ["scripted:/etc/passwd", "llamacpp:/home/me/model.gguf"])
def test_grade_solution_refuses_a_judge_read_from_a_file(
    context: Any, listener: RecordingServer, judge: str
) -> None:
    outcome = context.registry.call("grade_solution", {**GRADE, "judge_model": judge}, caller="mcp")
    refused(outcome, "as a file")


def test_start_modelica_task_refuses_a_model_at_a_url_or_in_a_file(
    context: Any, listener: RecordingServer
) -> None:
    for model in (f"openai:gpt-4o-mini@{listener.url}/v1", "scripted:/etc/passwd"):
        arguments = {"brief": "Write model Heater: a thermal mass.", "model_name": model}
        outcome = context.registry.call("start_modelica_task", arguments, caller="mcp")
        refused(outcome, "server address" if "@" in model else "as a file")
    assert listener.seen == []
