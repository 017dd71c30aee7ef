"""Where a tool may read or write a file named in its arguments: one rule for every tool.

A path resolves (a relative one against a base folder inside the workspace, e.g. its outputs) and
then lies either inside the workspace or a folder the user allowed in settings (`allowed_folders`),
or outside them all. Outside is possible, but only after a person confirmed the resolved path
(the registry asks: `ToolContext.file`). Never possible, confirmed or not:

- `..` in a path: a path that climbs reads as inside while it points outside;
- a path that leaves through a symbolic link: the path a person confirms is the path used, so a
  link anywhere on the way must stay inside the roots (a link inside pointing inside is fine);
- a Windows drive path (`C:/...`): on this machine it would be a folder named `C:`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from workbench.core.tool_errors import ToolFailure

Mode = Literal["read", "write"]
_DRIVE = re.compile(r"^[A-Za-z]:")


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
