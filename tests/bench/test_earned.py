"""The shared rule of every score (workbench.bench.earned): failed calls never count, a broken
binding zeroes the headline, and the two cheating policies' calls are really refused."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pydantic import BaseModel

from workbench.bench.earned import (
    Binding,
    CellResult,
    claim_run,
    play_refused,
    refused_arguments,
    succeeded,
)
from workbench.bench.tool_calls import HarnessFailure, ToolCall
from workbench.core.tools import Tool


class Loose(BaseModel):
    """Arguments that take anything: no refusal can be made for such a tool."""

    model_config = {"extra": "allow"}


def test_only_succeeded_calls_count() -> None:
    calls = [ToolCall("a", ok=True), ToolCall("b", ok=False), ToolCall("c", ok=True)]
    assert [call.name for call in succeeded(calls)] == ["a", "c"]


def test_binding_holds_only_for_the_same_bytes(tmp_path: Path) -> None:
    stl = tmp_path / "design.stl"
    stl.write_bytes(b"solid x\nendsolid x\n")
    digest = hashlib.sha256(stl.read_bytes()).hexdigest()
    assert Binding.to_file("STL", stl, digest).holds
    stl.write_bytes(b"solid y\nendsolid y\n")
    assert not Binding.to_file("STL", stl, digest).holds
    stl.unlink()
    gone = Binding.to_file("STL", stl, digest)
    assert not gone.holds and "missing" in gone.describe()
    assert not Binding("nothing recorded", "", None).holds


def test_a_broken_binding_zeroes_the_headline_only() -> None:
    result = CellResult(
        {"combined": 0.9, "task_completion": 1.0, "tool_calls": 4.0},
        {"design": "d1"},
        [Binding("STL", "abc", "def")],
        headline=("combined", "task_completion"),
    )
    gated = result.gated()
    assert gated.scores == {"combined": 0.0, "task_completion": 0.0, "tool_calls": 4.0}
    assert gated.details["design"] == "d1" and len(gated.details["unbound"]) == 1
    holding = CellResult({"combined": 0.9}, bindings=[Binding("STL", "abc", "abc")]).gated()
    assert holding.scores == {"combined": 0.9} and "unbound" not in holding.details


def test_refused_arguments_are_refused_by_the_real_registry(context) -> None:
    names = context.registry.names()
    assert "optimize_design" in names, "the topopt plugin must be installed"
    run = play_refused(
        context,
        "bench:test",
        [("optimize_design", {"problem": "beams2d", "volfrac": 0.4}), ("list_artifacts", {})],
    )
    assert [call.ok for call in run.calls] == [False, False]
    assert all(text for text in run.texts)
    assert not succeeded(run.calls)


def test_a_tool_that_refuses_nothing_is_a_harness_failure(context) -> None:
    tool = Tool(
        name="accepts_anything", description="test tool", args=Loose, result=Loose, run=Loose
    )
    context.registry.register(tool, owner="test")
    with pytest.raises(HarnessFailure, match="no arguments"):
        refused_arguments(context, "accepts_anything", {"x": 1})


def test_a_claim_has_no_calls() -> None:
    run = claim_run("compliance: 12.3, watertight STL exported")
    assert run.calls == [] and run.answer in run.texts
