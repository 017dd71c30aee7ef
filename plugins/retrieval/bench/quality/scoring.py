"""Which hits are relevant, and the two scores: recall@k and (mean) reciprocal rank.

A query names its relevant passages as targets: a document, a PDF page or a Markdown section,
and a phrase the passage must contain. A hit matches a target when all three agree, so an
overlapping neighbour passage or the same value in an outdated datasheet does not count. The
scores are computed per query from, for each ranked hit, the set of targets it matches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

_NOT_ALPHANUMERIC = re.compile(r"[\W_]+")


def normalised(text: str) -> str:
    """Letters and digits only, lower case: the same words whatever the PDF extraction did to
    spaces, line breaks, table pipes, punctuation and symbols such as °."""
    return _NOT_ALPHANUMERIC.sub("", text.lower())


@dataclass(frozen=True)
class Target:
    """One relevant passage of a query."""

    document: str  # the corpus document id: the file name without its suffix
    phrase: str
    page: int | None = None  # PDFs: 1-based page
    section: str = ""  # Markdown: part of the heading path, "Corrected values"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Target:
        return cls(
            document=str(data["document"]),
            phrase=str(data["phrase"]),
            page=int(data["page"]) if data.get("page") is not None else None,
            section=str(data.get("section", "")),
        )


@dataclass(frozen=True)
class RankedPassage:
    """What judging needs of a hit: where it comes from and its full text."""

    path: str
    page: int | None
    section: str
    text: str


def matches(passage: RankedPassage, target: Target) -> bool:
    if Path(passage.path).stem != target.document:
        return False
    if target.page is not None and passage.page != target.page:
        return False
    if target.section and target.section.lower() not in passage.section.lower():
        return False
    return normalised(target.phrase) in normalised(passage.text)


def judge(ranked: Sequence[RankedPassage], targets: Sequence[Target]) -> list[frozenset[int]]:
    """For each hit in rank order, the indices of the targets it matches (empty: irrelevant)."""
    return [
        frozenset(i for i, target in enumerate(targets) if matches(passage, target))
        for passage in ranked
    ]


def recall_at_k(judged: Sequence[frozenset[int]], targets: int, k: int) -> float:
    """The share of a query's targets found among its first k hits (each target once)."""
    if targets <= 0:
        raise ValueError("a query needs at least one relevant passage to have a recall")
    found: set[int] = set()
    for hit in judged[:k]:
        found |= hit
    return len(found) / targets


def reciprocal_rank(judged: Sequence[frozenset[int]]) -> float:
    """1 / the rank of the first relevant hit; 0 when none is relevant."""
    for rank, hit in enumerate(judged, start=1):
        if hit:
            return 1.0 / rank
    return 0.0


def mean(values: Sequence[float]) -> float:
    """The mean over queries (recall@k averaged is recall@k; reciprocal ranks averaged: MRR)."""
    if not values:
        raise ValueError("no queries to average")
    return fmean(values)
