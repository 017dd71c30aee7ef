"""Helpers for agent tests: the sample plugin installed, scripted models, extra specialists."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workbench.agents import AgentRuntime, HeadlessPolicy, ScriptedChatModel
from workbench.core.context import AppContext
from workbench.core.plugins import Plugin, Specialist


def call(name: str, args: Any = None, id: str | None = None) -> dict[str, Any]:
    return {"name": name, "args": {} if args is None else args, **({"id": id} if id else {})}


def say(text: str) -> dict[str, Any]:
    return {"content": text}


def calls(*tool_calls: dict[str, Any], content: str = "") -> dict[str, Any]:
    return {"content": content, "tool_calls": list(tool_calls)}


def handoff(specialist: str, task: str) -> dict[str, Any]:
    return calls(call(f"transfer_to_{specialist}", {"task": task}))


def add_specialist(context: AppContext, name: str, tools: tuple[str, ...], about: str = "") -> None:
    """A second specialist, contributed the way a plugin would (tools from the sample plugin)."""
    specialist = Specialist(name, about or f"The {name} specialist", f"You are {name}.", tools)
    context.plugins.plugins[name] = Plugin(name=name, title=name.title(), specialist=specialist)


def write_script(folder: Path, replies: list[dict[str, Any]], name: str = "script.json") -> str:
    path = folder / name
    path.write_text(json.dumps(replies))
    return f"scripted:{path}"


@pytest.fixture
def app(sample_plugins: Path, context: AppContext) -> AppContext:
    assert context.registry.get("sample_add") is not None
    # only the sample specialist routes, whatever other plugins this checkout has installed
    context.plugins.plugins = {"sample": context.plugins.plugins["sample"]}
    return context


@pytest.fixture
def scripted(app: AppContext) -> Iterator[Any]:
    """Make a runtime over a scripted model: scripted(replies, policy=None) -> (runtime, model)."""
    made: list[AgentRuntime] = []

    def make(
        replies: list[dict[str, Any]], policy: HeadlessPolicy | None = None, **kwargs: Any
    ) -> tuple[AgentRuntime, ScriptedChatModel]:
        model = ScriptedChatModel(replies=replies)
        runtime = AgentRuntime(app, model, model_name="scripted:test", policy=policy, **kwargs)
        made.append(runtime)
        return runtime, model

    yield make
    for runtime in made:
        runtime.close()
