"""Acceptance 3: write_file (and read_file) never leave the task workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.modelica.conftest import MODELS
from workbench.core.tools import ToolFailure
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.workspace_files import Workspace


@pytest.fixture
def run(context, tmp_path: Path):  # type: ignore[no-untyped-def]
    task = harness.Task(
        task_id="confine",
        profile="repair",
        model_name="RCCharge",
        files={"RCCharge.mo": (MODELS / "RCCharge.mo").read_text()},
    )
    started = harness.start_run(task, tmp_path / "task", context.ledger)
    yield started
    harness.forget_run(started.id)


OUTSIDE = ["../escape.mo", "sub/../../escape.mo", "/tmp/escape.mo", "..\\escape.mo", "C:/x.mo"]


@pytest.mark.parametrize("path", OUTSIDE)
def test_write_outside_is_refused(context, run, tmp_path: Path, path: str) -> None:  # type: ignore[no-untyped-def]
    before = sorted(p.name for p in (tmp_path / "task").iterdir())
    outcome = context.registry.call(
        "write_file", {"run": run.id, "path": path, "text": "model X end X;"}, caller="test"
    )
    assert not outcome.ok and outcome.error.kind == "failed"
    assert "Refused" in outcome.error.message
    assert not (tmp_path / "escape.mo").exists() and not Path("/tmp/escape.mo").exists()
    assert sorted(p.name for p in (tmp_path / "task").iterdir()) == before


def test_symlinks_are_refused_for_writing_and_reading(context, run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "contract.mo").write_text("private")
    os.symlink(secret, run.workspace.root / "link")
    os.symlink(secret / "contract.mo", run.workspace.root / "file.mo")
    for path in ("link/contract.mo", "link/new.mo", "file.mo"):
        outcome = context.registry.call(
            "write_file", {"run": run.id, "path": path, "text": "overwritten"}, caller="test"
        )
        assert not outcome.ok and "symbolic link" in outcome.error.message
        read = context.registry.call("read_file", {"run": run.id, "path": path}, caller="test")
        assert not read.ok
    assert (secret / "contract.mo").read_text() == "private"
    assert not (secret / "new.mo").exists()


def test_write_inside_makes_a_new_candidate(context, run) -> None:  # type: ignore[no-untyped-def]
    first = run.candidate.id
    outcome = context.registry.call(
        "write_file",
        {"run": run.id, "path": "sub/Extra.mo", "text": "model Extra\nend Extra;\n"},
        caller="test",
    )
    assert outcome.ok, outcome.error
    assert outcome.result["path"] == "sub/Extra.mo"
    assert outcome.result["candidate_id"] != first
    assert set(run.candidate.content["files"]) == {"RCCharge.mo", "sub/Extra.mo"}
    read = context.registry.call("read_file", {"run": run.id, "path": "sub/Extra.mo"}, caller="t")
    assert read.result["text"].startswith("model Extra")


def test_workspace_resolve_directly(tmp_path: Path) -> None:
    space = Workspace(tmp_path / "w")
    assert space.resolve("a/b.mo") == (tmp_path / "w" / "a" / "b.mo").resolve()
    for bad in ["", "..", "/etc/passwd", "a/../../b.mo"]:
        with pytest.raises(ToolFailure):
            space.resolve(bad)


def test_read_file_refuses_a_file_over_the_cap_saying_size_and_cap(context, run) -> None:  # type: ignore[no-untyped-def]
    from workbench_plugins.modelica.tools.files import MAX_READ_BYTES

    size = MAX_READ_BYTES + 1
    (run.workspace.root / "results.txt").write_bytes(b"x" * size)
    (run.workspace.root / "just_fits.txt").write_bytes(b"y" * MAX_READ_BYTES)
    read = context.registry.call("read_file", {"run": run.id, "path": "results.txt"}, caller="t")
    assert not read.ok
    assert f"{size:,} bytes" in read.error.message
    assert f"limit of {MAX_READ_BYTES:,} bytes" in read.error.message
    fits = context.registry.call("read_file", {"run": run.id, "path": "just_fits.txt"}, caller="t")
    assert fits.ok and len(fits.result["text"]) == MAX_READ_BYTES
