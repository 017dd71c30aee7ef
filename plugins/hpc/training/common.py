"""What both models share: seeding, CPU threads, the training run and its epoch loop over shuffled
mini-batches, and the losses of an epoch."""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

EpochReport = Callable[[int, dict[str, float]], None]  # epoch (from 1), mean losses
BatchStep = Callable[[torch.Tensor], dict[str, float]]  # one optimizer step on an index batch


def seed_everything(seed: int) -> torch.Generator:
    """Seeds Python, numpy and torch; returns a torch generator for the run's own draws."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)
    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator


def use_allotted_cores() -> int:
    """Torch threads = the CPUs Slurm gave the job (SLURM_CPUS_PER_TASK), else one: these models
    are small, and on a shared or busy machine two threads ran a forward pass 10x slower than
    one (measured on 2 busy cores)."""
    allotted = os.environ.get("SLURM_CPUS_PER_TASK", "")
    threads = int(allotted) if allotted.isdigit() and int(allotted) > 0 else 1
    torch.set_num_threads(threads)
    return torch.get_num_threads()


def as_tensor(array: npt.ArrayLike) -> torch.Tensor:
    return torch.as_tensor(np.asarray(array, dtype=np.float32))


def batches(count: int, batch_size: int, generator: torch.Generator) -> Iterator[torch.Tensor]:
    """Shuffled index batches; a last batch of one is dropped (batch norm needs two)."""
    order = torch.randperm(count, generator=generator)
    for start in range(0, count, batch_size):
        chunk = order[start : start + batch_size]
        if len(chunk) >= 2 or count == 1:
            yield chunk


def condition_planes(conditions: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """(n, c) conditions as c constant image channels (n, c, height, width)."""
    return conditions[:, :, None, None].expand(-1, -1, height, width)


@dataclass(frozen=True)
class TrainingRun:
    """What a model's `fit` trains on: (n, height, width) designs in [0, 1], (n, c) normalized
    conditions, how long and in what batches, the run's random draws and where epochs report."""

    designs: npt.NDArray[np.float64]
    conditions: npt.NDArray[np.float32]
    epochs: int
    batch_size: int
    generator_rng: torch.Generator
    on_epoch: EpochReport

    def network_shape(self) -> dict[str, Any]:
        """The hyperparameters both networks are built from (and rebuilt from when loaded)."""
        height, width = self.designs.shape[1], self.designs.shape[2]
        return {"height": height, "width": width, "n_conditions": self.conditions.shape[1]}

    def train_epochs(self, step: BatchStep) -> None:
        """Runs `step` on every shuffled batch of every epoch and reports each epoch's mean losses
        (in the order `step` names them)."""
        for epoch in range(1, self.epochs + 1):
            losses: dict[str, list[float]] = {}
            for index in batches(len(self.designs), self.batch_size, self.generator_rng):
                for name, value in step(index).items():
                    losses.setdefault(name, []).append(value)
            self.on_epoch(epoch, {name: float(np.mean(values)) for name, values in losses.items()})
