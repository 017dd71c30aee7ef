"""The two algorithms behind one interface: train, save, load, generate designs for conditions."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from workbench_plugins.hpc.training import cgan, diffusion
from workbench_plugins.hpc.training.common import EpochReport, TrainingRun
from workbench_plugins.hpc.training.recipes import ALGORITHMS

MODEL_FILE = "model.pt"


@dataclass
class TrainedModel:
    algorithm: str
    network: nn.Module  # the generator (cGAN) or the denoiser (DDPM)
    hyper: dict[str, Any]


def _check(algorithm: str) -> str:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    return algorithm


def fit(
    algorithm: str,
    designs: npt.NDArray[np.float64],
    conditions: npt.NDArray[np.float32],
    epochs: int,
    batch_size: int,
    generator_rng: torch.Generator,
    on_epoch: EpochReport,
) -> TrainedModel:
    """Trains `algorithm` on (n, height, width) designs in [0, 1] and (n, c) normalized
    conditions."""
    run = TrainingRun(designs, conditions, epochs, batch_size, generator_rng, on_epoch)
    trainer = cgan.fit if _check(algorithm) == "cgan_cnn_2d" else diffusion.fit
    network, hyper = trainer(run)
    return TrainedModel(algorithm, network, hyper)


def generate(
    model: TrainedModel, conditions: npt.NDArray[np.float32], generator_rng: torch.Generator
) -> npt.NDArray[np.float64]:
    """(n, height, width) designs in [0, 1] for (n, c) normalized conditions."""
    model.network.eval()
    with torch.no_grad():
        return _sample(model.network, conditions, generator_rng)


def _sample(
    network: nn.Module, conditions: npt.NDArray[np.float32], generator_rng: torch.Generator
) -> npt.NDArray[np.float64]:
    if isinstance(network, cgan.Generator):
        return cgan.sample(network, conditions, generator_rng)
    if isinstance(network, diffusion.Denoiser):
        return diffusion.sample(network, conditions, generator_rng)
    raise TypeError(f"no sampler for {type(network).__name__}")


def save(model: TrainedModel, path: Path) -> None:
    torch.save(
        {"algorithm": model.algorithm, "hyper": model.hyper, "state": model.network.state_dict()},
        path,
    )


def load(path: Path) -> TrainedModel:
    """A model written by `save` (tensors and plain values only: weights_only loading)."""
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}; was the training job's output copied?")
    stored = torch.load(path, map_location="cpu", weights_only=True)
    algorithm = _check(str(stored["algorithm"]))
    hyper = dict(stored["hyper"])
    network: nn.Module = (
        cgan.Generator(**hyper) if algorithm == "cgan_cnn_2d" else diffusion.Denoiser(**hyper)
    )
    network.load_state_dict(stored["state"])
    network.eval()
    return TrainedModel(algorithm, network, hyper)
