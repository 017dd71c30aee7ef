"""The one confinement rule for files named in tool arguments (workbench.core.files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from workbench.core.files import Confinement, PathRefused


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "workspace"
    (folder / "outputs").mkdir(parents=True)
    return folder


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "secret.txt").write_text("private")
    return folder


def check(workspace: Path, requested: str, allowed: tuple[str, ...] = (), mode: str = "write"):  # type: ignore[no-untyped-def]
    rule = Confinement.of(workspace, allowed)
    return rule.check(requested, base=workspace / "outputs", mode=mode)  # type: ignore[arg-type]


def test_a_file_name_lands_in_the_base_folder_inside(workspace: Path) -> None:
    access = check(workspace, "part.stl")
    assert access.path == (workspace / "outputs" / "part.stl").resolve()
    assert not access.outside
    inside = check(workspace, str(workspace / "notes" / "a.txt"))
    assert not inside.outside


def test_an_absolute_path_outside_is_marked_with_its_resolved_path(
    workspace: Path, elsewhere: Path
) -> None:
    access = check(workspace, str(elsewhere / "x.stl"))
    assert access.outside and access.path == (elsewhere / "x.stl").resolve()
    assert access.describe() == f"write {access.path}"


def test_home_paths_are_expanded_and_outside(
    workspace: Path, elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(elsewhere))
    access = check(workspace, "~/.bashrc", mode="read")
    assert access.outside and access.path == (elsewhere / ".bashrc").resolve()


@pytest.mark.parametrize(
    "requested", ["../../x", "sub/../../x.stl", "..\\x.stl", "/tmp/../etc/passwd", "C:/x.stl", ""]
)
def test_climbing_drive_and_empty_paths_are_refused(workspace: Path, requested: str) -> None:
    with pytest.raises(PathRefused):
        check(workspace, requested)


def test_a_link_inside_that_leads_out_is_refused(workspace: Path, elsewhere: Path) -> None:
    os.symlink(elsewhere, workspace / "outputs" / "door")
    os.symlink(elsewhere / "secret.txt", workspace / "outputs" / "note.txt")
    os.symlink(elsewhere / "not-yet.txt", workspace / "outputs" / "dangling.txt")
    for requested in ("door/secret.txt", "door/new.txt", "note.txt", "dangling.txt"):
        with pytest.raises(PathRefused, match="symbolic link"):
            check(workspace, requested)


def test_a_path_outside_reached_through_a_link_is_refused(
    workspace: Path, elsewhere: Path, tmp_path: Path
) -> None:
    """Outside needs a confirmation of the path shown; through a link the path used would differ."""
    os.symlink(elsewhere, tmp_path / "shortcut")
    with pytest.raises(PathRefused, match=str(elsewhere.resolve())):
        check(workspace, str(tmp_path / "shortcut" / "x.stl"))


def test_a_link_that_stays_inside_is_fine(workspace: Path) -> None:
    (workspace / "designs").mkdir()
    os.symlink(workspace / "designs", workspace / "outputs" / "designs")
    access = check(workspace, "designs/a.npy")
    assert not access.outside and access.path == (workspace / "designs" / "a.npy").resolve()


def test_an_allowed_folder_is_inside(workspace: Path, elsewhere: Path) -> None:
    access = check(workspace, str(elsewhere / "x.stl"), allowed=(str(elsewhere),))
    assert not access.outside
    beside = check(workspace, str(elsewhere.parent / "x.stl"), allowed=(str(elsewhere),))
    assert beside.outside  # the folder itself, not its parent
