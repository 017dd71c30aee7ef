"""Ground truth: the EngiBench optimiser run offline on the task's conditions, cached on disk.

The datasets cannot be downloaded here (spec, "Decisions"), so the optimal design and objective
come from the same optimiser that made the dataset. A cache entry is keyed by a hash of (problem,
EngiBench version, conditions, full config, start seed) and written atomically, so a sweep (or
parallel workers) optimises each ground truth once per machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench_plugins.topopt import engine

CACHE_FOLDER = "topopt-workflow-ground-truth"
SOURCE = "optimised offline with EngiBench {version} (no dataset)"


@dataclass(frozen=True)
class GroundTruth:
    design: npt.NDArray[np.float64]
    objective: float  # compliance c (beams2d, lower is better) or total_overlap (photonics2d)
    key: str
    computed_s: float  # 0.0 when read from the cache (the optimiser did not run now)

    @property
    def source(self) -> str:
        return SOURCE.format(version=engine.engibench_version())


def cache_key(problem: str, conditions: dict[str, Any], config: dict[str, Any], seed: int) -> str:
    parsed = engine.parse_config(problem, config)
    # Beams2D's optimiser starts from uniform volfrac whatever the seed; Photonics2D's start noise
    # is seeded, so only there does the seed change the answer.
    start_seed = seed if problem == "photonics2d" else 0
    identity = {
        "problem": problem,
        "engibench": engine.engibench_version(),
        "conditions": conditions,
        "config": parsed.model_dump(),
        "seed": start_seed,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def ground_truth(
    cache_dir: Path, problem: str, conditions: dict[str, Any], config: dict[str, Any], seed: int
) -> GroundTruth:
    key = cache_key(problem, conditions, config, seed)
    path = cache_dir / CACHE_FOLDER / f"{key}.npz"
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as stored:
                return GroundTruth(stored["design"], float(stored["objective"]), key, 0.0)
        except (OSError, ValueError, KeyError):
            pass  # a damaged entry is recomputed and replaced
    parsed = engine.parse_config(problem, config)
    started = time.perf_counter()
    start_seed = seed if problem == "photonics2d" else 0
    result = engine.optimize(problem, parsed, start_seed)
    objective = engine.simulate(problem, parsed, result.design, start_seed)
    value = objective[engine.objective_names(problem)[0]]
    elapsed = time.perf_counter() - started
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{key}.{os.getpid()}.part.npz")
    np.savez(partial, design=np.asarray(result.design, dtype=np.float64), objective=value)
    os.replace(partial, path)
    return GroundTruth(np.asarray(result.design, dtype=np.float64), value, key, elapsed)
