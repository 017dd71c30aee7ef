"""Search the index: keyword (FTS5 BM25), dense (cosine over stored vectors), or both fused by
reciprocal rank fusion (each list adds 1 / (k + rank), k = 60)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from workbench_plugins.retrieval.index.database import DocumentIndex, Passage
from workbench_plugins.retrieval.index.embeddings import Embedder, EmbeddingError

Mode = Literal["keyword", "dense", "fused"]
RRF_K = 60
POOL = 50  # candidates each list brings to the fusion


class SearchError(RuntimeError):
    """A mode that cannot run now (dense without an embedder)."""


@dataclass(frozen=True)
class Hit:
    passage: Passage
    score: float  # keyword: -bm25; dense: cosine; fused: RRF sum (higher is better everywhere)


def keyword(index: DocumentIndex, query: str, limit: int) -> list[Hit]:
    return [Hit(p, score) for p, score in index.keyword(query, limit)]


def embed_missing(index: DocumentIndex, embedder: Embedder, batch: int = 256) -> int:
    """Give vectors to passages indexed while this embedder was unavailable."""
    missing = index.unembedded(embedder.name)
    for start in range(0, len(missing), batch):
        part = missing[start : start + batch]
        index.add_vectors(
            embedder.name, [i for i, _ in part], embedder.passages([t for _, t in part])
        )
    return len(missing)


def dense(index: DocumentIndex, query: str, limit: int, embedder: Embedder) -> list[Hit]:
    embed_missing(index, embedder)
    ids, matrix = index.vectors(embedder.name)
    if not ids or not query.strip():
        return []
    scores = matrix @ np.asarray(embedder.query(query), dtype=np.float32)
    best = np.argsort(-scores)[:limit]
    passages = index.passages([ids[i] for i in best])
    return [Hit(passages[ids[i]], float(scores[i])) for i in best if ids[i] in passages]


def fuse(rankings: list[list[Hit]], limit: int, k: int = RRF_K) -> list[Hit]:
    """Reciprocal rank fusion; a passage keeps the keyword snippet when it has one."""
    scores: dict[int, float] = {}
    seen: dict[int, Passage] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            key = hit.passage.chunk_id
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
            if key not in seen or (hit.passage.snippet and not seen[key].snippet):
                seen[key] = hit.passage
    order = sorted(scores, key=lambda key: -scores[key])[:limit]
    return [Hit(seen[key], scores[key]) for key in order]


def search(
    index: DocumentIndex, query: str, mode: Mode, limit: int, embedder: Embedder | None
) -> list[Hit]:
    if mode == "keyword":
        return keyword(index, query, limit)
    if embedder is None:
        raise SearchError(f"{mode} search needs an embedding model and none is available")
    try:
        if mode == "dense":
            return _with_snippets(dense(index, query, limit, embedder))
        ranked = [keyword(index, query, POOL), dense(index, query, POOL, embedder)]
    except EmbeddingError as error:
        raise SearchError(str(error)) from error
    return _with_snippets(fuse(ranked, limit))


def _with_snippets(hits: list[Hit]) -> list[Hit]:
    """A dense hit has no FTS snippet: its passage's first words stand in."""
    out = []
    for hit in hits:
        if not hit.passage.snippet:
            words = hit.passage.text.split()
            text = " ".join(words[:40]) + (" ..." if len(words) > 40 else "")
            hit = Hit(replace(hit.passage, snippet=text), hit.score)
        out.append(hit)
    return out
