"""Files of a task workspace, confined: nothing outside the workspace folder is read or written.

A path is taken relative to the workspace; `..` segments, absolute paths and symbolic links that
lead out (in any component, existing or not) are refused before anything touches the disk, so a
benchmark's private contract next to the workspace stays private and nothing written before is
lost. The rule itself is the core's, the one every tool argument naming a file follows.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from workbench.core.files import Confinement, Mode
from workbench.core.tools import ToolFailure

MAX_FILE_BYTES = 2_000_000  # a Modelica package file larger than this is surely a mistake
TEXT_SUFFIXES = (".mo", ".txt", ".md", ".json", ".csv", ".mos")


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def resolve(self, relative: str, mode: Mode = "read") -> Path:
        """The confined absolute path for `relative`, or a ToolFailure saying why not.

        The core rule (workbench.core.files) with the task workspace as its only root; outside
        is refused outright: no one is asked, a benchmark's sandbox has no exceptions."""
        access = Confinement((self.root,)).check(relative, base=self.root, mode=mode)
        if access.outside:
            raise ToolFailure(
                f"Refused {relative!r}: it is outside the task workspace.",
                f"Use a path relative to the task workspace ({self.root}).",
            )
        return access.path

    def relative(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.root).as_posix()

    def read(self, relative: str) -> str:
        path = self.resolve(relative)
        if not path.is_file():
            listing = ", ".join(self.files()) or "no files"
            raise ToolFailure(f"No file {relative!r} in the workspace.", f"It holds: {listing}.")
        return path.read_text(encoding="utf-8", errors="replace")

    def write(self, relative: str, text: str) -> Path:
        path = self.resolve(relative, "write")
        if not path.name.endswith(TEXT_SUFFIXES):
            raise ToolFailure(
                f"Refused {relative!r}: only text files ({', '.join(TEXT_SUFFIXES)}) are written.",
                "Name the file with one of those suffixes.",
            )
        data = text.encode("utf-8")
        if len(data) > MAX_FILE_BYTES:
            raise ToolFailure(f"Refused {relative!r}: {len(data)} bytes is too large.")
        path.parent.mkdir(parents=True, exist_ok=True)
        # write then rename, so a crash never leaves half a model behind
        # confined too: a planted link under the scratch name must not be written through
        scratch = self.resolve(f"{self.relative(path.parent)}/.{path.name}.writing", "write")
        scratch.write_bytes(data)
        os.replace(scratch, path)
        return path

    def files(self, suffix: str = "") -> list[str]:
        """Workspace files (relative, sorted), skipping hidden ones and links."""
        found = []
        for path in sorted(self.root.rglob("*")):
            rel = path.relative_to(self.root)
            if any(part.startswith(".") for part in rel.parts) or path.is_symlink():
                continue
            if path.is_file() and path.name.endswith(suffix):
                found.append(rel.as_posix())
        return found

    def snapshot(self, suffix: str = ".mo") -> dict[str, str]:
        """{relative path: text} of the evaluation-relevant files (the candidate's content)."""
        return {name: self.read(name) for name in self.files(suffix)}


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
