"""EngiOpt's metrics of a trained model (EngiAI paper, Appendix B; spec section 5).

For each generated design x0 with its condition c (from the test split): EngiBench's optimizer
starts from x0 under c for at most `max_iter` steps; the gaps are the simulated objective of each
step minus f*, the compliance of the dataset's optimal design for c. Then, averaged over samples:

- iog: the t=0 gap, f(x0, c) - f* (Appendix B; the reference code reports the raw f(x0, c));
- cog: the sum of the gaps over the path; fog: the last gap;
- viol: the share of generated designs whose mean density misses volfrac by 0.01 or more;
- mmd: between the generated designs and the dataset's optimal designs of the same conditions;
- dpp: det(K + 1e-6 I) over the generated designs; both with a Gaussian kernel, sigma 10.

Cost: one bounded optimization per sample (0.3-0.8 s at 16x32 with the default 40 iterations on
2 busy cores) plus the EngiBench import (about 3 s): a CI-size run (8 samples) evaluates in 5-15 s,
50 samples in under 45 s (measured), so keep n_samples at 50 or less for a CI-size run. Asking
for more samples than `samples.npz` holds generates the extra ones from `model.pt` for further
test conditions (torch is needed then).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np
import numpy.typing as npt

from workbench.bench.design_metrics import SIGMA, dpp, mmd, rvc
from workbench_plugins.hpc.training.dataset import (
    Beams2DDataset,
    DatasetSpec,
    beams_problem,
    load_or_generate,
    normalized_conditions,
)
from workbench_plugins.hpc.training.recipes import TrainingRecipe
from workbench_plugins.hpc.training.train import RECORD_FILE, SAMPLES_FILE

METRIC_KEYS = ("iog", "cog", "fog", "mmd", "dpp", "viol")
EXTRA_SAMPLES_SEED_OFFSET = 2_000_003


def _recipe(out_dir: Path) -> TrainingRecipe:
    record_path = out_dir / RECORD_FILE
    if not record_path.is_file():
        raise FileNotFoundError(
            f"{record_path} is missing: the training did not finish or its outputs were not "
            "downloaded into this folder"
        )
    record: dict[str, Any] = json.loads(record_path.read_text(encoding="utf-8"))
    return TrainingRecipe.model_validate(record["recipe"])


def _samples(
    out_dir: Path, dataset: Beams2DDataset, n_samples: int, seed: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """n_samples (designs, dataset rows): a seeded choice among the stored samples, topped up
    with designs generated from the model when more are asked for than were stored."""
    path = out_dir / SAMPLES_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download the training job's outputs first")
    with np.load(path, allow_pickle=False) as stored:
        designs = np.asarray(stored["designs"], dtype=np.float64)
        rows = np.asarray(stored["dataset_index"], dtype=np.int64)
    rng = np.random.default_rng(seed)
    if n_samples <= len(designs):
        chosen = np.sort(rng.choice(len(designs), n_samples, replace=False))
        return designs[chosen], rows[chosen]
    extra = n_samples - len(designs)
    test_rows = dataset.test_indices
    extra_rows = rng.choice(test_rows, extra, replace=extra > len(test_rows))
    extra_designs = _generate(out_dir, dataset.conditions[extra_rows], seed)
    return np.concatenate([designs, extra_designs]), np.concatenate([rows, extra_rows])


def _generate(
    out_dir: Path, conditions: npt.NDArray[np.float64], seed: int
) -> npt.NDArray[np.float64]:
    import torch

    from workbench_plugins.hpc.training import models

    model = models.load(out_dir / models.MODEL_FILE)
    rng = torch.Generator().manual_seed(seed + EXTRA_SAMPLES_SEED_OFFSET)
    return models.generate(model, normalized_conditions(conditions), rng)


def optimality_gaps(
    design: npt.NDArray[np.float64],
    condition: npt.NDArray[np.float64],
    optimum: float,
    max_iter: int,
) -> dict[str, float]:
    """iog, cog, fog of one design: EngiBench's optimizer warm-started from it, at most max_iter
    steps; each step's objective is that of the design it started the step with."""
    nely, nelx = design.shape
    problem = beams_problem(condition, nelx, nely, max_iter)
    _, history = problem.optimize(starting_point=design, config={"max_iter": max_iter})
    objectives = np.array([float(np.asarray(step.obj_values).ravel()[0]) for step in history])
    gaps = objectives - optimum
    return {"iog": float(gaps[0]), "cog": float(gaps.sum()), "fog": float(gaps[-1])}


def evaluate_outputs(
    out_dir: Path,
    dataset: Path,
    n_samples: int,
    seed: int,
    max_iter: int | None = None,
) -> dict[str, float]:
    """The six metrics of the training outputs in `out_dir` (model.pt, samples.npz,
    training.json) against the dataset in `dataset` (the cache folder the job used, here or a
    copy; generated again if absent: it is deterministic). `max_iter` bounds the optimizer per
    sample (default: the recipe's). Keys exactly iog, cog, fog, mmd, dpp, viol; all finite.

    Bounded for a CI-size run (8 samples at 16x32): 5-15 s; see the module docstring."""
    if n_samples < 1:
        raise ValueError(f"n_samples must be at least 1 (got {n_samples})")
    recipe = _recipe(out_dir)
    spec = DatasetSpec(recipe.n_designs, recipe.nelx, recipe.nely, recipe.max_iter)
    data = load_or_generate(dataset, spec)
    designs, rows = _samples(out_dir, data, n_samples, seed)
    if designs.shape[1:] != data.shape:
        raise ValueError(
            f"the samples are {designs.shape[1]}x{designs.shape[2]} but the dataset "
            f"{data.path} holds {data.shape[0]}x{data.shape[1]} designs"
        )
    iterations = max_iter if max_iter is not None else recipe.max_iter
    gaps = [
        optimality_gaps(design, data.conditions[row], float(data.objectives[row]), iterations)
        for design, row in zip(designs, rows, strict=True)
    ]
    metrics = {name: fmean(g[name] for g in gaps) for name in ("iog", "cog", "fog")}
    metrics["mmd"] = mmd(designs, data.designs[rows], SIGMA)
    metrics["dpp"] = dpp(designs, SIGMA)
    metrics["viol"] = rvc(designs, [float(v) for v in data.conditions[rows, 0]])
    missing = [name for name in METRIC_KEYS if not math.isfinite(metrics[name])]
    if missing:
        raise ArithmeticError(f"metrics {', '.join(missing)} are not finite: {metrics}")
    return {name: float(metrics[name]) for name in METRIC_KEYS}
