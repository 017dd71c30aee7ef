"""Files of a task workspace, confined: nothing outside the workspace folder is read or written.

A path is taken relative to the workspace; `..` segments, absolute paths and symbolic links (in
any component, existing or not) are refused before anything touches the disk, so a benchmark's
private contract next to the workspace stays private and nothing written before is lost.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePosixPath

from workbench.core.tools import ToolFailure

MAX_FILE_BYTES = 2_000_000  # a Modelica package file larger than this is surely a mistake
TEXT_SUFFIXES = (".mo", ".txt", ".md", ".json", ".csv", ".mos")


class Workspace:
    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def resolve(self, relative: str) -> Path:
        """The confined absolute path for `relative`, or a ToolFailure saying why not."""
        hint = f"Use a path relative to the task workspace ({self.root}), without '..' or links."
        text = relative.replace("\\", "/").strip()
        if not text:
            raise ToolFailure("The path is empty.", hint)
        pure = PurePosixPath(text)
        if pure.is_absolute() or os.path.isabs(relative) or (len(text) > 1 and text[1] == ":"):
            raise ToolFailure(
                f"Refused {relative!r}: absolute paths are outside the workspace.", hint
            )
        if any(part == ".." for part in pure.parts):
            raise ToolFailure(f"Refused {relative!r}: '..' leaves the workspace.", hint)
        candidate = self.root
        for part in pure.parts:
            if part in ("", "."):
                continue
            candidate = candidate / part
            if candidate.is_symlink():
                raise ToolFailure(
                    f"Refused {relative!r}: {candidate.relative_to(self.root)} is a symbolic link, "
                    "which could point outside the workspace.",
                    hint,
                )
        resolved = candidate.resolve()
        if resolved != self.root and self.root not in resolved.parents:  # belt and braces
            raise ToolFailure(f"Refused {relative!r}: it resolves outside the workspace.", hint)
        return resolved

    def relative(self, path: Path) -> str:
        return Path(path).resolve().relative_to(self.root).as_posix()

    def read(self, relative: str) -> str:
        path = self.resolve(relative)
        if not path.is_file():
            listing = ", ".join(self.files()) or "no files"
            raise ToolFailure(f"No file {relative!r} in the workspace.", f"It holds: {listing}.")
        return path.read_text(encoding="utf-8", errors="replace")

    def write(self, relative: str, text: str) -> Path:
        path = self.resolve(relative)
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
        scratch = path.with_name(f".{path.name}.writing")
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
