"""A cell's result as a suite returns it: scores and details apart, and the bindings its headline
rests on (a score bound to an artifact counts only while the artifact is the one scored)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def sha256_file(path: Path) -> str | None:
    """The file's sha256, or None when it is not there (a binding to a gone file fails)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


@dataclass(frozen=True)
class Binding:
    """A score's tie to what it scores: the sha256 recorded when the work produced the
    artifact, and the sha256 of the artifact as the scorer finds it (None: missing)."""

    what: str  # for people: "design beams2d-3 STL", "submitted model text"
    expected: str
    actual: str | None

    @property
    def holds(self) -> bool:
        return bool(self.expected) and self.actual == self.expected

    @classmethod
    def to_file(cls, what: str, path: Path, expected: str) -> Binding:
        return cls(what, expected, sha256_file(path))

    def describe(self) -> str:
        if self.holds:
            return f"{self.what}: sha256 {self.expected[:12]} holds"
        found = "missing" if self.actual is None else f"sha256 {self.actual[:12]}"
        return f"{self.what}: expected sha256 {self.expected[:12] or '(none)'}, found {found}"


@dataclass
class CellResult:
    """What a suite's `run` returns for one cell: scores (numbers), details (anything else,
    kept in the record), the bindings the headline rests on, and which scores are the headline
    (empty: every score)."""

    scores: dict[str, float]
    details: dict[str, Any] = field(default_factory=dict)
    bindings: list[Binding] = field(default_factory=list)
    headline: tuple[str, ...] = ()

    def broken(self) -> list[Binding]:
        return [binding for binding in self.bindings if not binding.holds]

    def gated(self, suite_headline: tuple[str, ...] = ()) -> CellResult:
        """The result as recorded: with any binding broken, the headline scores (this result's,
        else the suite's, else every score) are 0 and the details say which binding failed;
        every binding is listed either way."""
        details = dict(self.details)
        details["bindings"] = [binding.describe() for binding in self.bindings]
        broken = self.broken()
        scores = dict(self.scores)
        if broken:
            details["unbound"] = [binding.describe() for binding in broken]
            for name in self.headline or suite_headline or tuple(scores):
                if name in scores:
                    scores[name] = 0.0
        return CellResult(scores, details, list(self.bindings), self.headline)
