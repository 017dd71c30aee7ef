"""Baselines for the report's Figures 8 and 9, computed here on the dataset the jobs trained on
(the paper compares with EngiBench's published baseline models, which this project cannot
download). Each stands in for a generator and is scored exactly as a trained model is
(training.evaluate: the same test conditions, optimality gaps, MMD against the same optimal
designs, DPP, RVC), so the agent-trained rows can be read against them:

- "Training data": for each test condition, the training design whose condition is nearest
  (in the conditions scaled to [0, 1]): a model that only memorised its training set;
- "Random at volfrac": for each test condition, a random 0/1 design with exactly the condition's
  volume fraction (RVC 0 by construction): a model that learnt the volume and nothing else.

Both run over every test condition of the dataset (at most MAX_ROWS), once per dataset: the
numbers are kept in the results folder (BASELINE_FILE) and reused while the dataset is the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench.bench.design_metrics import SIGMA, dpp, mmd, rvc

BASELINE_FILE = "hpc-baselines.json"
FORMAT = 1  # bump when a baseline's procedure changes: the kept numbers are then recomputed
MAX_ROWS = 50  # each row costs one bounded optimisation per baseline (0.3-0.8 s at 16x32)
RANDOM_SEED = 0
LABELS = {
    "training-data": "Training data (nearest training design per test condition)",
    "random-volfrac": "Random at volfrac (0/1 designs with the condition's volume fraction)",
}

Designs = npt.NDArray[np.float64]


def nearest_training_designs(conditions: Designs, train: Designs, designs: Designs) -> Designs:
    """For each row of `conditions` (scaled), the design of the nearest `train` condition."""
    distances = np.linalg.norm(conditions[:, None, :] - train[None, :, :], axis=2)
    return designs[np.argmin(distances, axis=1)]


def random_at_volfrac(volfracs: Designs, shape: tuple[int, int], seed: int) -> Designs:
    """One random 0/1 design per volume fraction, with round(volfrac * cells) solid cells."""
    rng = np.random.default_rng(seed)
    cells = shape[0] * shape[1]
    out = np.zeros((len(volfracs), cells))
    for index, volfrac in enumerate(volfracs):
        solid = rng.choice(cells, round(float(volfrac) * cells), replace=False)
        out[index, solid] = 1.0
    return out.reshape(len(volfracs), *shape)


def scored(
    designs: Designs, rows: npt.NDArray[np.int64], data: Any, max_iter: int
) -> dict[str, float]:
    """The six metrics of `designs` for the dataset rows `rows`, as a trained model's."""
    from workbench_plugins.hpc.training.evaluate import optimality_gaps

    gaps = [
        optimality_gaps(design, data.conditions[row], float(data.objectives[row]), max_iter)
        for design, row in zip(designs, rows, strict=True)
    ]
    metrics = {name: fmean(g[name] for g in gaps) for name in ("iog", "cog", "fog")}
    metrics["mmd"] = mmd(designs, data.designs[rows], SIGMA)
    metrics["dpp"] = dpp(designs, SIGMA)
    metrics["viol"] = rvc(designs, [float(v) for v in data.conditions[rows, 0]])
    return {name: float(value) for name, value in metrics.items()}


def compute(recipe: Mapping[str, Any], cache: Path) -> dict[str, Any]:
    """Both baselines on the dataset of `recipe` (training.json's), from the dataset cache."""
    from workbench_plugins.hpc.training.dataset import (
        DatasetSpec,
        load_or_generate,
        normalized_conditions,
    )

    spec = DatasetSpec(
        int(recipe["n_designs"]), int(recipe["nelx"]), int(recipe["nely"]), int(recipe["max_iter"])
    )
    data = load_or_generate(cache, spec)
    rows = data.test_indices[:MAX_ROWS]
    train = data.train_indices
    scaled = normalized_conditions(data.conditions).astype(np.float64)
    designs = {
        "training-data": nearest_training_designs(scaled[rows], scaled[train], data.designs[train]),
        "random-volfrac": random_at_volfrac(data.conditions[rows, 0], data.shape, RANDOM_SEED),
    }
    return {
        "format": FORMAT,
        "dataset": data.key,
        "rows": len(rows),
        "metrics": {name: scored(d, rows, data, spec.max_iter) for name, d in designs.items()},
    }


def baselines(folder: Path, recipe: Mapping[str, Any], cache: Path) -> dict[str, Any]:
    """The baselines of `recipe`'s dataset: the ones kept in `folder` when they are of the same
    dataset and procedure, else computed now and kept."""
    from workbench_plugins.hpc.training.dataset import DatasetSpec

    key = DatasetSpec(
        int(recipe["n_designs"]), int(recipe["nelx"]), int(recipe["nely"]), int(recipe["max_iter"])
    ).key()
    path = folder / BASELINE_FILE
    if path.is_file():
        kept = json.loads(path.read_text(encoding="utf-8"))
        if kept.get("format") == FORMAT and kept.get("dataset") == key:
            return dict(kept)
    found = compute(recipe, cache)
    path.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    return found
