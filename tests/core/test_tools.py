"""The tool registry: validation, structured errors, recording, confirmation, cleanup."""

from __future__ import annotations

import asyncio

import pytest

from workbench.core.context import AppContext
from workbench.core.events import ToolCalled


@pytest.fixture
def app(sample_plugins, context: AppContext) -> AppContext:
    return context


def test_valid_call_returns_result_and_is_recorded(app: AppContext) -> None:
    outcome = app.registry.call("sample_add", {"a": 2, "b": 3.5}, caller="test")
    assert outcome.ok and outcome.result == {"total": 5.5}
    [record] = app.store.tool_calls("sample_add")
    assert record["caller"] == "test"
    assert record["arguments"] == {"a": 2, "b": 3.5}
    assert record["result"] == {"total": 5.5} and record["ok"] is True
    assert record["duration_s"] >= 0


def test_bad_argument_names_field_and_constraint(app: AppContext) -> None:
    outcome = app.registry.call("sample_add", {"a": -1, "b": "seven"}, caller="agent")
    assert not outcome.ok and outcome.error is not None
    assert outcome.error.kind == "invalid_arguments"
    problems = {p.field: p for p in outcome.error.problems}
    assert problems["a"].constraint == "greater_than_equal"
    assert problems["b"].constraint == "float_parsing"
    assert "a: Input should be greater than or equal to 0" in outcome.error.explain()
    [record] = app.store.tool_calls("sample_add")
    assert record["ok"] is False and record["error"]["problems"][0]["field"] == "a"


def test_missing_field_and_unknown_tool(app: AppContext) -> None:
    missing = app.registry.call("sample_add", {"a": 1}, caller="agent")
    assert missing.error is not None and missing.error.problems[0].field == "b"
    assert missing.error.problems[0].constraint == "missing"
    unknown = app.registry.call("no_such_tool", {}, caller="agent")
    assert unknown.error is not None and unknown.error.kind == "unknown_tool"
    assert "sample_add" in unknown.error.hint


def test_failed_call_writes_nothing_but_its_record(app: AppContext) -> None:
    kept = app.registry.call("sample_write_note", {"text": "keep me"}, caller="test")
    assert kept.ok
    before = {a.sha256 for a in app.store.artifacts()}
    failed = app.registry.call(
        "sample_write_note", {"text": "drop me", "fail_after_writing": True}, caller="test"
    )
    assert not failed.ok and failed.error is not None and failed.error.kind == "failed"
    assert failed.error.hint == "Call again without the flag."
    assert {a.sha256 for a in app.store.artifacts()} == before
    stored = {p.name for p in app.store.artifact_dir.rglob("*") if p.is_file()}
    assert stored == before
    assert [c["ok"] for c in app.store.tool_calls("sample_write_note")] == [True, False]


def test_physical_tool_needs_confirmation(app: AppContext) -> None:
    refused = app.registry.call("sample_actuate", {}, caller="agent")
    assert refused.error is not None and refused.error.kind == "confirmation_required"
    confirmed = app.registry.call("sample_actuate", {}, caller="gui", confirmed=True)
    assert confirmed.ok and confirmed.result == {"moved": True}
    described = {d["name"]: d for d in app.registry.describe()}
    assert described["sample_actuate"]["needs_confirmation"] is True
    assert described["sample_add"]["side_effect"] == "compute"
    assert described["sample_add"]["arguments"]["required"] == ["a", "b"]


def test_async_call_publishes_event(app: AppContext) -> None:
    seen: list[ToolCalled] = []
    app.bus.subscribe(ToolCalled, seen.append)
    outcome = asyncio.run(app.registry.acall("sample_add", {"a": 1, "b": 1}, caller="gui"))
    assert outcome.ok
    assert [(e.tool, e.caller, e.ok, e.call_id) for e in seen] == [
        ("sample_add", "gui", True, outcome.call_id)
    ]


def test_registry_knows_which_plugin_owns_a_tool(app: AppContext) -> None:
    assert app.registry.owner("sample_add") == "sample"
    assert app.registry.owner("workspace_info") == "workspace"
    assert app.registry.owner("no_such_tool") == ""
