"""Retrieval tests: an app with the retrieval tools, and helpers to call them as the agent does."""

from __future__ import annotations

from typing import Any

from tests.support.plugin_app import plugin_app_fixtures
from workbench.core.tools import ToolOutcome

app, workspace = plugin_app_fixtures("retrieval")


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
