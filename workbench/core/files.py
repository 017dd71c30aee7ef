"""Where a tool may read or write a file named in its arguments: one rule for every tool.

A path resolves (a relative one against a base folder inside the workspace, e.g. its outputs) and
then lies either inside the workspace or a folder the user allowed in settings (`allowed_folders`),
or outside them all. Outside is possible, but only after a person confirmed the resolved path
(the registry asks: `ToolContext.file`). Never possible, confirmed or not:

- `..` in a path: a path that climbs reads as inside while it points outside;
- a path that leaves through a symbolic link: the path a person confirms is the path used, so a
  link anywhere on the way must stay inside the roots (a link inside pointing inside is fine);
- a Windows drive path (`C:/...`): on this machine it would be a folder named `C:`.

A path checked now may be a link by the time it is opened (a swap in between: TOCTOU), so a tool
opens a file argument with `open_checked` (or `FileAccess.open`): every folder on the way and the
file itself are opened without following a link, then the opened descriptor is checked (a regular
file, at the checked path).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any, Literal

from workbench.core.tool_errors import ToolFailure

Mode = Literal["read", "write"]
_DRIVE = re.compile(r"^[A-Za-z]:")
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
_FLAGS = {
    "r": os.O_RDONLY,
    "w": _WRITE,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
    "r+": os.O_RDWR,
}
# a FIFO swapped in must not block the open: blocking is restored once it is known to be a file
_NO_LINK_NO_WAIT = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_FOLDER_ONLY = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_SWAPPED = (errno.ELOOP, errno.ENOTDIR)  # a link where a file (ELOOP) or a folder was


class PathRefused(ToolFailure):
    """A path no confirmation can make usable ('..', a link leading out, ...)."""


@dataclass(frozen=True)
class FileAccess:
    requested: str
    path: Path  # absolute, links resolved: exactly what is read or written
    mode: Mode
    outside: bool  # outside the workspace and every allowed folder: needs a person's word

    def describe(self) -> str:
        return f"{self.mode} {self.path}"

    def open_fd(self, flags: int | None = None) -> int:
        """A descriptor on the checked file itself (default flags: read, or write a new or
        truncated file); PathRefused if a link or something else took its place since."""
        if flags is None:
            flags = os.O_RDONLY if self.mode == "read" else _WRITE
        if self.mode == "read" and flags & (os.O_WRONLY | os.O_RDWR | _WRITE):
            raise ValueError(f"{self.path} was checked for reading, not writing")
        folder = _open_folder(self, self.path.parent)
        try:
            opened = os.open(self.path.name, flags | _NO_LINK_NO_WAIT, 0o666, dir_fd=folder)
        except OSError as failure:
            if failure.errno in _SWAPPED:
                raise _swapped(self, self.path) from None
            raise
        finally:
            os.close(folder)
        try:
            _check_opened(self, opened)
        except BaseException:
            os.close(opened)
            raise
        return opened

    def open(self, mode: str = "") -> IO[Any]:
        """The checked file as a file object (`mode` as for `open`; default "rb" or "wb")."""
        mode = mode or ("rb" if self.mode == "read" else "wb")
        flags = _FLAGS[mode.replace("b", "").replace("t", "")]
        return os.fdopen(self.open_fd(flags), mode)


class ConfirmationNeeded(Exception):
    """A tool met a file outside the workspace that no person has confirmed."""

    def __init__(self, accesses: list[FileAccess]) -> None:
        super().__init__(", ".join(access.describe() for access in accesses))
        self.accesses = accesses


@dataclass(frozen=True)
class Confinement:
    roots: tuple[Path, ...]  # the workspace first, then the allowed folders

    @classmethod
    def of(cls, workspace: Path, allowed: Iterable[str] = ()) -> Confinement:
        folders = [Path(workspace), *(Path(os.path.expanduser(a)) for a in allowed if a.strip())]
        return cls(tuple(folders))

    def check(self, requested: str | os.PathLike[str], *, base: Path, mode: Mode) -> FileAccess:
        """Resolve `requested` (relative: against `base`) and say whether it lies outside.

        Raises PathRefused for what no confirmation allows."""
        text = os.fspath(requested).strip()
        hint = (
            f"Use a file name (it goes to {base}) or a path inside the workspace "
            f"({self.roots[0]}), without '..' and not through a link leading elsewhere."
        )
        if not text:
            raise PathRefused("The path is empty.", hint)
        if _DRIVE.match(text):
            raise PathRefused(f"Refused {text!r}: a Windows drive path means nothing here.", hint)
        pure = PurePosixPath(text.replace("\\", "/"))  # models write Windows separators too
        if ".." in pure.parts:
            raise PathRefused(f"Refused {text!r}: '..' is not allowed in a path.", hint)
        given = Path(os.path.expanduser(str(pure)))
        lexical = Path(os.path.normpath(given if given.is_absolute() else Path(base) / given))
        real = Path(os.path.realpath(lexical))
        if self._holds(real):
            return FileAccess(text, real, mode, outside=False)
        if self._holds(lexical) or real != lexical:
            link = _first_link(lexical)
            raise PathRefused(
                f"Refused {text!r}: {link or lexical} is a symbolic link that leads to {real}; "
                "a link never leads a tool out of the workspace or the allowed folders.",
                f"Give the real path {real} if that file is meant (a person must confirm it).",
            )
        return FileAccess(text, real, mode, outside=True)

    def _holds(self, path: Path) -> bool:
        """Inside a root, as written or with the root's own links resolved."""
        for root in self.roots:
            for form in {root, Path(os.path.realpath(root))}:
                if path == form or path.is_relative_to(form):
                    return True
        return False


def _first_link(path: Path) -> Path | None:
    """The first component of `path` that is a symbolic link (for the message)."""
    current = Path(path.anchor)
    for part in path.parts[1:]:
        current = current / part
        if current.is_symlink():
            return current
    return None


def open_checked(path: Path, mode: str = "rb") -> IO[Any]:
    """Open `path` as `ToolContext.file` returned it (checked, links resolved) without following
    any link put on it since: PathRefused if one was. How a tool opens a file argument."""
    checked: Mode = "read" if mode.startswith("r") and "+" not in mode else "write"
    return FileAccess(str(path), path, checked, outside=False).open(mode)


def _open_folder(access: FileAccess, folder: Path) -> int:
    """A descriptor on `folder`, reached from / one folder at a time, none of them a link."""
    current = os.open("/", _FOLDER_ONLY)
    reached = Path("/")
    for part in folder.parts[1:]:
        reached = reached / part
        try:
            following = os.open(part, _FOLDER_ONLY, dir_fd=current)
        except OSError as failure:
            if failure.errno in _SWAPPED:
                raise _swapped(access, reached) from None
            raise
        finally:
            os.close(current)
        current = following
    return current


def _check_opened(access: FileAccess, opened: int) -> None:
    """What was opened is a regular file at the checked path (where /proc tells)."""
    if not stat.S_ISREG(os.fstat(opened).st_mode):
        raise PathRefused(
            f"Refused {access.requested!r}: {access.path} is not a regular file.",
            "Name a file (not a folder, pipe or device).",
        )
    os.set_blocking(opened, True)
    shown = Path(f"/proc/self/fd/{opened}")
    if shown.parent.is_dir() and os.readlink(shown) != str(access.path):
        raise _swapped(access, access.path)


def _swapped(access: FileAccess, where: Path) -> PathRefused:
    return PathRefused(
        f"Refused {access.requested!r}: {where} changed after it was checked (it is a "
        "symbolic link now, or a link was put on the way); nothing was read or written.",
        "Check what changed that path; a tool never follows a link put there after the check.",
    )
