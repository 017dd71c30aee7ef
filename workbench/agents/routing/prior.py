"""The routing prior: how well a request matches each specialist, without a language model.

Each specialist is known by its description and its declared examples (one-line requests it is
the one for). A request's score for a specialist is the cosine similarity of their sentence
embeddings, averaged over the specialist's TOP_K best-matching texts: the best match alone lets
one stray example win, an average over all of them drowns a good match in unrelated ones.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.agents.routing.embedder import Embedder, MiniLM, minilm_installed
from workbench.core.plugins import Specialist

TOP_K = 2


@dataclass(frozen=True)
class Ranking:
    """Specialists by score, best first (cosine similarities, -1..1)."""

    scores: tuple[tuple[str, float], ...]

    @property
    def top(self) -> str:
        return self.scores[0][0]

    @property
    def top_score(self) -> float:
        return self.scores[0][1]

    @property
    def margin(self) -> float:
        """How far the best is ahead of the runner-up (the whole score with one specialist)."""
        runner_up = self.scores[1][1] if len(self.scores) > 1 else 0.0
        return self.top_score - runner_up

    def score(self, name: str) -> float | None:
        return dict(self.scores).get(name)

    def rounded(self, digits: int = 3) -> dict[str, float]:
        return {name: round(value, digits) for name, value in self.scores}


def profile_texts(specialist: Specialist) -> list[str]:
    return [specialist.description, *specialist.examples]


class RoutingPrior:
    """Ranks specialists for a request; the specialists' texts are embedded once each."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._profiles: dict[tuple[str, ...], np.ndarray] = {}
        self._lock = threading.Lock()

    def _profile(self, specialist: Specialist) -> np.ndarray:
        texts = tuple(profile_texts(specialist))
        with self._lock:
            if texts not in self._profiles:
                self._profiles[texts] = self.embedder.encode(list(texts))
            return self._profiles[texts]

    def rank(self, request: str, specialists: Sequence[Specialist]) -> Ranking:
        if not specialists:
            raise ValueError("no specialist to rank")
        query = self.embedder.encode([request])[0]
        scored = []
        for specialist in specialists:
            similarities = np.sort(self._profile(specialist) @ query)[::-1]
            scored.append((specialist.name, float(similarities[:TOP_K].mean())))
        scored.sort(key=lambda pair: pair[1], reverse=True)
        return Ranking(tuple(scored))


_default: RoutingPrior | None = None
_default_lock = threading.Lock()


def default_prior() -> RoutingPrior | None:
    """The process's MiniLM prior (its model loads on first use), or None when the `dense`
    extra is not installed: routing is then the model's alone."""
    global _default
    if not minilm_installed():
        return None
    with _default_lock:
        if _default is None:
            _default = RoutingPrior(MiniLM())
        return _default
