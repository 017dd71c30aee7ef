"""The training job: `python -m workbench_plugins.hpc.training.train --algorithm A --problem
beams2d --seed S --epochs E --dataset PATH --out DIR`.

Makes (or reuses) the Beams2D dataset in PATH (a cache folder, or a .npz made before), trains the
model on its train split, and writes into DIR: `model.pt`, `samples.npz` (designs generated for
conditions of the test split: `designs` (n, nely, nelx) in [0, 1], `conditions` (n, 3) as
volfrac, forcedist, rmin, `dataset_index` (n,) their rows in the dataset) and `training.json` (the
recipe, the losses per epoch, the seconds each phase took). One progress line per epoch goes to
stdout (the Slurm log). Exit status 2 for a bad argument, 1 for a failure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from workbench_plugins.hpc.training.recipes import ALGORITHMS, PROBLEMS, TrainingRecipe

if TYPE_CHECKING:
    from workbench_plugins.hpc.training.dataset import Beams2DDataset
    from workbench_plugins.hpc.training.models import TrainedModel

SAMPLES_FILE = "samples.npz"
RECORD_FILE = "training.json"
SAMPLING_SEED_OFFSET = 1_000_003  # sampling draws apart from training's, same run seed


def parser() -> argparse.ArgumentParser:
    fields = TrainingRecipe.model_fields
    arguments = argparse.ArgumentParser(
        prog="python -m workbench_plugins.hpc.training.train",
        description="Train a conditional generative model of Beams2D designs on CPU.",
    )
    arguments.add_argument("--algorithm", required=True, choices=ALGORITHMS)
    arguments.add_argument("--problem", default="beams2d", choices=PROBLEMS)
    arguments.add_argument("--seed", required=True, type=int)
    arguments.add_argument("--epochs", required=True, type=int)
    for name in ("n_designs", "nelx", "nely", "max_iter", "batch_size", "n_samples"):
        arguments.add_argument(
            "--" + name.replace("_", "-"),
            type=int,
            default=fields[name].default,
            help=f"{fields[name].description or name} (default {fields[name].default})",
        )
    arguments.add_argument("--dataset", required=True, type=Path, help="cache folder or .npz")
    arguments.add_argument("--out", required=True, type=Path, help="output folder")
    return arguments


def recipe_from(options: argparse.Namespace) -> TrainingRecipe:
    return TrainingRecipe(
        algorithm=options.algorithm,
        problem_id=options.problem,
        seed=options.seed,
        epochs=options.epochs,
        n_designs=options.n_designs,
        nelx=options.nelx,
        nely=options.nely,
        max_iter=options.max_iter,
        batch_size=options.batch_size,
        n_samples=options.n_samples,
    )


def say(text: str) -> None:
    print(text, flush=True)  # flushed: the queue view tails the Slurm log while the job runs


def run(recipe: TrainingRecipe, dataset_path: Path, out_dir: Path) -> dict[str, Any]:
    """Trains and writes the three output files; returns what training.json holds."""
    import torch  # imported here: `--help` and argument errors answer without loading torch

    from workbench_plugins.hpc.training import models
    from workbench_plugins.hpc.training.common import seed_everything, use_allotted_cores
    from workbench_plugins.hpc.training.dataset import normalized_conditions

    started = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    threads = use_allotted_cores()
    say(
        f"training {recipe.algorithm} on {recipe.problem_id}: seed {recipe.seed}, "
        f"{recipe.epochs} epochs, torch {torch.__version__} on {threads} CPU thread(s)"
    )
    dataset = _dataset(recipe, dataset_path)
    dataset_seconds = time.perf_counter() - started
    say(
        f"dataset: {dataset.path} ({len(dataset.train_indices)} train, "
        f"{len(dataset.test_indices)} test, {dataset_seconds:.1f} s)"
    )

    generator_rng = seed_everything(recipe.seed)
    losses: list[dict[str, float]] = []

    def report(epoch: int, epoch_losses: dict[str, float]) -> None:
        losses.append({"epoch": epoch, **epoch_losses})
        shown = " ".join(f"{name}={value:.4f}" for name, value in epoch_losses.items())
        say(f"epoch {epoch}/{recipe.epochs} {shown} ({time.perf_counter() - started:.1f} s)")

    train_rows = dataset.train_indices
    training_started = time.perf_counter()
    model = models.fit(
        recipe.algorithm,
        dataset.designs[train_rows],
        normalized_conditions(dataset.conditions[train_rows]),
        recipe.epochs,
        recipe.batch_size,
        generator_rng,
        report,
    )
    training_seconds = time.perf_counter() - training_started

    sampling_started = time.perf_counter()
    rows, designs = _sample(recipe, dataset, model)
    sampling_seconds = time.perf_counter() - sampling_started

    models.save(model, out_dir / models.MODEL_FILE)
    _write_samples(out_dir / SAMPLES_FILE, designs, dataset.conditions[rows], rows)
    seconds = {
        "dataset": round(dataset_seconds, 3),
        "training": round(training_seconds, 3),
        "sampling": round(sampling_seconds, 3),
        "total": round(time.perf_counter() - started, 3),
    }
    record = _record(recipe, dataset, losses, seconds, torch.__version__, threads)
    partial = out_dir / (RECORD_FILE + ".part")
    partial.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    os.replace(partial, out_dir / RECORD_FILE)  # written last: its presence means "finished"
    say(f"done: {len(designs)} samples written to {out_dir} in {seconds['total']} s")
    return record


def _record(
    recipe: TrainingRecipe,
    dataset: Beams2DDataset,
    losses: list[dict[str, float]],
    seconds: dict[str, float],
    torch_version: str,
    threads: int,
) -> dict[str, Any]:
    """What training.json holds: the recipe, the dataset, losses per epoch and timings."""
    from workbench_plugins.hpc.training import models

    return {
        "recipe": recipe.model_dump(),
        "dataset": {
            "file": str(dataset.path),
            "key": dataset.key,
            "train": len(dataset.train_indices),
            "test": len(dataset.test_indices),
        },
        "model_file": models.MODEL_FILE,
        "samples_file": SAMPLES_FILE,
        "losses": losses,
        "seconds": seconds,
        "torch": torch_version,
        "threads": threads,
    }


def _dataset(recipe: TrainingRecipe, dataset_path: Path) -> Beams2DDataset:
    from workbench_plugins.hpc.training.dataset import DatasetSpec, load_or_generate

    spec = DatasetSpec(recipe.n_designs, recipe.nelx, recipe.nely, recipe.max_iter)
    dataset = load_or_generate(
        dataset_path, spec, lambda done, total: say(f"dataset: design {done}/{total} optimized")
    )
    if dataset.shape != (recipe.nely, recipe.nelx):
        raise ValueError(
            f"dataset {dataset.path} holds {dataset.shape[0]}x{dataset.shape[1]} designs but the "
            f"recipe asks for {recipe.nely}x{recipe.nelx}; pass the cache folder instead"
        )
    return dataset


def _sample(
    recipe: TrainingRecipe, dataset: Beams2DDataset, model: TrainedModel
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """n_samples designs for conditions drawn (seeded) from the test split, and their rows."""
    import torch

    from workbench_plugins.hpc.training import models
    from workbench_plugins.hpc.training.dataset import normalized_conditions

    sampling_rng = np.random.default_rng(recipe.seed + SAMPLING_SEED_OFFSET)
    test_rows = dataset.test_indices
    rows = sampling_rng.choice(
        test_rows, recipe.n_samples, replace=recipe.n_samples > len(test_rows)
    )
    torch_rng = torch.Generator().manual_seed(recipe.seed + SAMPLING_SEED_OFFSET)
    designs = models.generate(model, normalized_conditions(dataset.conditions[rows]), torch_rng)
    return np.asarray(rows, dtype=np.int64), designs


def _write_samples(path: Path, designs: Any, conditions: Any, rows: Any) -> None:
    np.savez_compressed(
        path,
        designs=np.asarray(designs, dtype=np.float64),
        conditions=np.asarray(conditions, dtype=np.float64),
        dataset_index=np.asarray(rows, dtype=np.int64),
        condition_names=np.asarray(["volfrac", "forcedist", "rmin"]),
    )


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser()
    options = arguments.parse_args(argv)  # exits 2 with a usage message on a bad argument
    try:
        recipe = recipe_from(options)
    except ValidationError as error:
        problems = "; ".join(
            f"--{'-'.join(str(part) for part in issue['loc']).replace('_', '-') or 'recipe'}: "
            f"{issue['msg']}"
            for issue in error.errors()
        )
        arguments.error(problems)
    try:
        run(recipe, options.dataset, options.out)
    except (OSError, ValueError) as error:
        print(f"training failed: {error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
