"""The registry applies the file rule: outside the workspace only after a confirmation showing the
path (the refusal carries it; the caller calls again confirmed), never out through a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from workbench.core.context import AppContext
from workbench.core.settings import Settings
from workbench.core.tools import SideEffect, Tool, ToolContext


class NoteArgs(BaseModel):
    path: str
    text: str = "note"


class Written(BaseModel):
    path: str


def note_path(args: NoteArgs, context: ToolContext) -> Path:
    return context.file(args.path, mode="write", base=context.app.store.folder)


def write_note(args: NoteArgs, context: ToolContext) -> Written:
    path = note_path(args, context)
    path.write_text(args.text)
    return Written(path=str(path))


def write_undeclared(args: NoteArgs, context: ToolContext) -> Written:
    return write_note(args, context)  # no `files`: only the run itself meets the path


@pytest.fixture
def app(context: AppContext) -> AppContext:
    note = Tool("write_note", "Write.", NoteArgs, Written, write_note, files=note_path)
    context.registry.register(note)
    context.registry.register(
        Tool("write_undeclared", "Write.", NoteArgs, Written, write_undeclared, SideEffect.WRITE)
    )
    return context


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def test_a_file_outside_needs_a_confirmation_that_shows_its_path(
    app: AppContext, outside: Path
) -> None:
    target = outside / "x.txt"
    refused = app.registry.call("write_note", {"path": str(target)}, caller="agent")
    assert not refused.ok and refused.error is not None
    assert refused.error.kind == "confirmation_required"
    assert refused.error.paths == [str(target.resolve())]
    assert f"write {target.resolve()}" in refused.error.explain()
    assert not target.exists()  # nothing written on refusal

    done = app.registry.call("write_note", {"path": str(target)}, caller="cli", confirmed=True)
    assert done.ok, done.error
    assert target.read_text() == "note"


def test_inside_the_workspace_nobody_is_asked(app: AppContext) -> None:
    done = app.registry.call("write_note", {"path": "notes/../x.txt"}, caller="agent")
    assert not done.ok and "'..'" in done.error.message  # type: ignore[union-attr]
    (app.store.folder / "notes").mkdir()
    done = app.registry.call("write_note", {"path": "notes/a.txt"}, caller="agent")
    assert done.ok and Path(done.result["path"]).parent == (app.store.folder / "notes").resolve()  # type: ignore[index]


def test_the_question_is_known_before_the_call(app: AppContext, outside: Path) -> None:
    """What the agent's interrupt and the GUI's dialog show, found without running anything."""
    needed = app.registry.confirmation_needed("write_note", {"path": str(outside / "x.txt")})
    assert needed is not None and needed.paths == [str((outside / "x.txt").resolve())]
    assert app.registry.confirmation_needed("write_note", {"path": "inside.txt"}) is None
    assert app.registry.confirmation_needed("write_note", {"path": "../../x"}) is None  # refused
    assert app.store.tool_calls() == [] and not (outside / "x.txt").exists()


def test_a_link_leading_out_is_refused_even_when_confirmed(app: AppContext, outside: Path) -> None:
    (outside / "bashrc").write_text("original")
    os.symlink(outside / "bashrc", app.store.folder / "note.txt")
    refused = app.registry.call("write_note", {"path": "note.txt"}, caller="cli", confirmed=True)
    assert not refused.ok and refused.error.kind == "failed"  # type: ignore[union-attr]
    assert "symbolic link" in refused.error.message  # type: ignore[union-attr]
    assert (outside / "bashrc").read_text() == "original"


def test_an_allowed_folder_needs_no_confirmation(app: AppContext, outside: Path) -> None:
    app.settings.allowed_folders = [str(outside)]
    done = app.registry.call("write_note", {"path": str(outside / "x.txt")}, caller="agent")
    assert done.ok, done.error
    assert app.registry.confirmation_needed("write_note", {"path": str(outside / "y")}) is None


def test_a_path_met_only_while_running_is_still_refused(app: AppContext, outside: Path) -> None:
    target = outside / "x.txt"
    refused = app.registry.call("write_undeclared", {"path": str(target)}, caller="agent")
    assert refused.error is not None and refused.error.kind == "confirmation_required"
    assert refused.error.paths == [str(target.resolve())]
    assert not target.exists()


def test_allowed_folders_must_be_absolute() -> None:
    with pytest.raises(ValidationError, match="absolute"):
        Settings(allowed_folders=["relative/folder"])
    assert Settings(allowed_folders=["~/prints"]).allowed_folders == ["~/prints"]
