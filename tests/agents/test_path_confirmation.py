"""A file outside the workspace is a confirmation interrupt like a physical action: asked before
anything of that reply runs, with the resolved path in the question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.agents.conftest import add_specialist, call, calls, handoff, say
from tests.rigs.require import require_rig
from workbench.core.context import AppContext


@pytest.fixture
def design(app: AppContext) -> Path:
    require_rig(
        "topopt plugin",
        app.registry.get("convert_design_to_stl") is not None,
        "the topopt plugin is not installed (pip install -e .)",
    )
    add_specialist(app, "exporter", ("convert_design_to_stl",))
    block = np.zeros((50, 100))
    block[:, :40] = 1.0
    path = app.store.folder / "outputs" / "topopt" / "block.npy"
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, block)
    return path


def export(design: Path, stl: str) -> list[dict[str, Any]]:
    arguments = {"npy_file_path": str(design), "stl_file_path": stl}
    return [
        handoff("exporter", "Export the block."),
        calls(call("convert_design_to_stl", arguments)),
        say("Exported."),
        say("Done."),
    ]


def test_an_export_outside_the_workspace_waits_for_a_person_with_scripted_model(
    app: AppContext, scripted: Any, design: Path, tmp_path: Path
) -> None:
    stl = tmp_path / "desk" / "block.stl"
    stl.parent.mkdir()
    runtime, _ = scripted(export(design, str(stl)))
    first = runtime.send_sync("export", "Export the block to my desk.")

    assert first.status == "interrupted"
    [request] = first.interrupts
    assert request.kind == "confirmation" and request.tool == "convert_design_to_stl"
    assert str(stl.resolve()) in request.question
    assert app.store.tool_calls() == [] and not stl.exists()  # nothing ran while waiting

    second = runtime.resume_sync("export", {"approved": True})
    assert second.status == "done", second.error
    assert stl.is_file()
    [recorded] = app.store.tool_calls("convert_design_to_stl")
    assert recorded["ok"] is True


def test_an_export_inside_the_workspace_asks_nobody_with_scripted_model(
    app: AppContext, scripted: Any, design: Path
) -> None:
    runtime, _ = scripted(export(design, "block.stl"))
    result = runtime.send_sync("export", "Export the block.")
    assert result.status == "done" and result.interrupts == []
    assert (design.parent / "block.stl").is_file()
