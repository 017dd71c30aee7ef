"""Cut segments into passages of a few hundred words that overlap their neighbours.

A passage never crosses a page or a section, so each one cites exactly one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from workbench_plugins.retrieval.index.loaders import Segment


@dataclass(frozen=True)
class Chunk:
    text: str
    page: int | None
    section: str


def chunk(segments: Iterable[Segment], words: int = 220, overlap: int = 40) -> list[Chunk]:
    overlap = min(overlap, words // 2)  # a step of at least half a passage: no near-copies
    step = words - overlap
    passages: list[Chunk] = []
    for segment in segments:
        tokens = segment.text.split()
        start = 0
        while start < len(tokens):
            piece = tokens[start : start + words]
            passages.append(Chunk(" ".join(piece), segment.page, segment.section))
            if start + words >= len(tokens):
                break
            start += step
    return passages
