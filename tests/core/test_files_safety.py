"""File confinement holds between the check and the open (issue 28, TOCTOU).

A path is checked, then something swaps a symbolic link in (the file itself, or a folder on the
way) before the tool opens it. Opening the checked path must refuse, and nothing outside may be
read or written. The swap happens between the two steps, deterministically.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from workbench.core.files import Confinement, FileAccess, PathRefused, open_checked

SECRET = "outside-secret-planted"


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Confinement]:
    """(the workspace, a folder outside it holding a secret, the confinement)."""
    workspace, outside = tmp_path / "workspace", tmp_path / "outside"
    (workspace / "notes").mkdir(parents=True)
    outside.mkdir()
    (outside / "notes.txt").write_text(SECRET)
    (workspace / "notes" / "notes.txt").write_text("my notes")
    return workspace, outside, Confinement.of(workspace)


def checked(confinement: Confinement, workspace: Path, name: str, mode: str) -> FileAccess:
    access = confinement.check(name, base=workspace, mode=mode)  # type: ignore[arg-type]
    assert not access.outside
    return access


def test_a_checked_file_opens_for_reading_and_writing(
    places: tuple[Path, Path, Confinement],
) -> None:
    workspace, _, confinement = places
    with open_checked(checked(confinement, workspace, "notes/notes.txt", "read").path) as read:
        assert read.read() == b"my notes"
    written = checked(confinement, workspace, "notes/new.txt", "write")
    with written.open() as out:
        out.write(b"result")
    assert (workspace / "notes" / "new.txt").read_text() == "result"


def test_a_file_swapped_for_a_link_after_the_check_is_not_read(
    places: tuple[Path, Path, Confinement],
) -> None:
    workspace, outside, confinement = places
    access = checked(confinement, workspace, "notes/notes.txt", "read")
    target = workspace / "notes" / "notes.txt"
    target.unlink()
    target.symlink_to(outside / "notes.txt")  # the swap, between check and open
    with pytest.raises(PathRefused, match="changed after it was checked"):
        open_checked(access.path)
    with pytest.raises(PathRefused):
        access.open()


def test_a_folder_swapped_for_a_link_after_the_check_is_not_written_through(
    places: tuple[Path, Path, Confinement],
) -> None:
    workspace, outside, confinement = places
    access = checked(confinement, workspace, "notes/notes.txt", "write")
    os.rename(workspace / "notes", workspace / "moved")
    (workspace / "notes").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathRefused, match="changed after it was checked"):
        open_checked(access.path, "wb")
    assert (outside / "notes.txt").read_text() == SECRET  # not truncated, not overwritten
    new_file = checked(confinement, workspace, "moved/fresh.txt", "write")
    os.rename(workspace / "moved", workspace / "elsewhere")
    (workspace / "moved").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathRefused):
        new_file.open()
    assert not (outside / "fresh.txt").exists()  # nothing created outside


def test_a_pipe_swapped_in_is_refused_without_waiting(
    places: tuple[Path, Path, Confinement],
) -> None:
    """A FIFO would block a plain open for ever; the refusal comes at once."""
    workspace, _, confinement = places
    access = checked(confinement, workspace, "notes/notes.txt", "read")
    target = workspace / "notes" / "notes.txt"
    target.unlink()
    os.mkfifo(target)
    outcome: list[BaseException] = []
    opener = threading.Thread(target=lambda: _capture(access, outcome), daemon=True)
    opener.start()
    opener.join(10)
    assert not opener.is_alive(), "opening a swapped-in pipe blocked"
    assert isinstance(outcome[0], PathRefused) and "not a regular file" in str(outcome[0])


def test_a_file_checked_for_reading_is_not_opened_for_writing(
    places: tuple[Path, Path, Confinement],
) -> None:
    workspace, _, confinement = places
    access = checked(confinement, workspace, "notes/notes.txt", "read")
    with pytest.raises(ValueError, match="reading"):
        access.open("wb")
    assert (workspace / "notes" / "notes.txt").read_text() == "my notes"


def _capture(access: FileAccess, outcome: list[BaseException]) -> None:
    try:
        access.open().close()
    except BaseException as raised:
        outcome.append(raised)


def test_a_design_swapped_for_a_link_after_the_check_is_not_loaded(
    places: tuple[Path, Path, Confinement],
) -> None:
    """The topopt tools read a design file argument through open_checked: a link swapped in
    between the check and the load is refused, the outside array never read."""
    from types import SimpleNamespace

    import numpy as np

    from workbench_plugins.topopt.designs import load_npy

    workspace, outside, confinement = places
    np.save(outside / "secret.npy", np.ones((4, 4)))
    folder = workspace / "outputs" / "topopt"
    folder.mkdir(parents=True)
    design = folder / "design.npy"
    np.save(design, np.zeros((4, 4)))

    def file(name: str, mode: str, base: Path) -> Path:
        path = confinement.check(name, base=base, mode=mode).path  # type: ignore[arg-type]
        design.unlink()
        design.symlink_to(outside / "secret.npy")  # the swap, between check and load
        return path

    context = SimpleNamespace(
        app=SimpleNamespace(store=SimpleNamespace(folder=workspace)), file=file
    )
    with pytest.raises(PathRefused, match="changed after it was checked"):
        load_npy(context, "design.npy")  # type: ignore[arg-type]
