"""Retrieval tests: an app with the retrieval tools, and helpers to call them as the agent does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.core.tools import ToolOutcome


@pytest.fixture
def app(context: Any) -> Any:
    """The app context; registers the retrieval tools when the entry point is not installed."""
    from workbench_plugins.retrieval.tools import tools

    for tool in tools():
        if context.registry.get(tool.name) is None:
            context.registry.register(tool, owner="retrieval")
    return context


@pytest.fixture
def workspace(app: Any) -> Path:
    return Path(app.store.folder)


def call(app: Any, tool: str, **arguments: Any) -> ToolOutcome:
    return app.registry.call(tool, arguments, caller="agent")  # type: ignore[no-any-return]


def ok(app: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    outcome = call(app, tool, **arguments)
    assert outcome.ok, outcome.error.explain() if outcome.error else outcome
    assert outcome.result is not None
    return outcome.result


def listed(app: Any) -> list[tuple[str, str, int]]:
    """What list_documents shows: (source, sha256, passages) of each document."""
    documents = ok(app, "list_documents")["documents"]
    return [(d["source"], d["sha256"], d["passages"]) for d in documents]
