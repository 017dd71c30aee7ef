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
from workbench_plugins.hpc.training.common import EpochReport
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
    trainer = cgan.fit if _check(algorithm) == "cgan_cnn_2d" else diffusion.fit
    network, hyper = trainer(designs, conditions, epochs, batch_size, generator_rng, on_epoch)
    return TrainedModel(algorithm, network, hyper)


def generate(
    model: TrainedModel, conditions: npt.NDArray[np.float32], generator_rng: torch.Generator
) -> npt.NDArray[np.float64]:
    """(n, height, width) designs in [0, 1] for (n, c) normalized conditions."""
    if isinstance(model.network, cgan.Generator):
        return cgan.sample(model.network, conditions, generator_rng)
    if isinstance(model.network, diffusion.Denoiser):
        return diffusion.sample(model.network, conditions, generator_rng)
    raise TypeError(f"no sampler for {type(model.network).__name__}")


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
    network: nn.Module = cgan.build(hyper) if algorithm == "cgan_cnn_2d" else diffusion.build(hyper)
    network.load_state_dict(stored["state"])
    network.eval()
    return TrainedModel(algorithm, network, hyper)
