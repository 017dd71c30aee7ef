"""The newest stored design and its objective history, read for the idle density view (no Qt)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench.core.store import Store

DESIGN_KIND = "topopt.design"  # designs.DESIGN_KIND; not imported, to keep numpy-only deps light
HISTORY_KIND = "topopt.history"


@dataclass
class StoredDesign:
    design: npt.NDArray
    meta: dict[str, Any]
    history: list[float]


def read_last_design(store: Store) -> StoredDesign | None:
    """The newest optimised design and its objective history (runs in a thread: file I/O)."""
    found = [a for a in store.artifacts(DESIGN_KIND) if a.meta.get("role") == "optimized"]
    if not found:
        return None
    artifact = found[-1]
    history: list[float] = []
    if artifact.tool_call_id is not None:
        for candidate in store.artifacts(HISTORY_KIND):
            if candidate.tool_call_id == artifact.tool_call_id:
                history = list(json.loads(candidate.path.read_text()).get("obj_values", []))
    design = np.load(artifact.path, allow_pickle=False)  # content-addressed: no .npy suffix
    return StoredDesign(np.asarray(design, dtype=float), artifact.meta, history)


def describe_config(problem_type: str, config: dict[str, Any] | None) -> str:
    shown = ("volfrac", "rmin", "forcedist", "lambda1", "lambda2", "blur_radius")
    parts = [f"{k} {v:g}" for k, v in (config or {}).items() if k in shown]
    return problem_type + (f"  ({', '.join(parts)})" if parts else "")
