"""A small conditional DDPM (the reference's `diffusion_2d_cond`, scaled down).

A convolutional denoiser with one down/up level predicts the noise added to a design (scaled to
[-1, 1]) given the step and the normalized conditions (extra constant channels); the schedule is
the cosine one with 100 steps, which keeps sampling cheap on a CPU. Sampling is DDPM's ancestral
sampler; designs come back clipped to [0, 1].
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

from workbench_plugins.hpc.training.common import (
    TrainingRun,
    as_tensor,
    condition_planes,
)

STEPS = 100
WIDTH = 32
TIME_FEATURES = 16
LEARNING_RATE = 1e-3


def cosine_betas(steps: int = STEPS) -> torch.Tensor:
    """Nichol and Dhariwal's cosine schedule: betas that keep some signal until the last step."""
    t = torch.linspace(0, steps, steps + 1, dtype=torch.float64) / steps
    alpha_bar = torch.cos((t + 0.008) / 1.008 * math.pi / 2) ** 2
    return (1 - alpha_bar[1:] / alpha_bar[:-1]).clamp(max=0.999).float()


def time_features(steps: torch.Tensor) -> torch.Tensor:
    """Sinusoidal features of the step index (n,) -> (n, TIME_FEATURES)."""
    half = TIME_FEATURES // 2
    frequencies = torch.exp(-math.log(1000.0) * torch.arange(half) / half)
    angles = steps.float()[:, None] * frequencies[None]
    return torch.cat([angles.sin(), angles.cos()], dim=1)


class Denoiser(nn.Module):
    def __init__(self, height: int, width: int, n_conditions: int = 3):
        super().__init__()
        self.design_shape = (height, width)
        self.time = nn.Sequential(nn.Linear(TIME_FEATURES, WIDTH), nn.SiLU())
        self.encode = nn.Sequential(
            nn.Conv2d(1 + n_conditions, WIDTH, 3, padding=1), nn.GroupNorm(8, WIDTH), nn.SiLU()
        )
        self.down = nn.Sequential(
            nn.Conv2d(WIDTH, 2 * WIDTH, 4, stride=2, padding=1),
            nn.GroupNorm(8, 2 * WIDTH),
            nn.SiLU(),
            nn.Conv2d(2 * WIDTH, 2 * WIDTH, 3, padding=1),
            nn.SiLU(),
        )
        self.up = nn.ConvTranspose2d(2 * WIDTH, WIDTH, 4, stride=2, padding=1)
        self.decode = nn.Sequential(
            nn.Conv2d(2 * WIDTH, WIDTH, 3, padding=1),
            nn.GroupNorm(8, WIDTH),
            nn.SiLU(),
            nn.Conv2d(WIDTH, 1, 3, padding=1),
        )

    def forward(
        self, noisy: torch.Tensor, steps: torch.Tensor, conditions: torch.Tensor
    ) -> torch.Tensor:
        planes = condition_planes(conditions, noisy.shape[1], noisy.shape[2])
        skip = self.encode(torch.cat([noisy[:, None], planes], dim=1))
        skip = skip + self.time(time_features(steps))[:, :, None, None]
        upsampled = self.up(self.down(skip))
        return self.decode(torch.cat([upsampled, skip], dim=1)).squeeze(1)  # type: ignore[no-any-return]


def fit(run: TrainingRun) -> tuple[Denoiser, dict[str, Any]]:
    """Trains the denoiser with the simple noise-prediction loss; returns it (in eval mode) and
    the hyperparameters needed to rebuild it."""
    hyper = run.network_shape()
    clean_all, cond_all = as_tensor(run.designs) * 2 - 1, as_tensor(run.conditions)
    alpha_bar = torch.cumprod(1 - cosine_betas(), dim=0)
    model = Denoiser(**hyper)
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)

    def step(index: torch.Tensor) -> dict[str, float]:
        clean, cond = clean_all[index], cond_all[index]
        steps = torch.randint(0, STEPS, (len(index),), generator=run.generator_rng)
        noise = torch.randn(clean.shape, generator=run.generator_rng)
        scale = alpha_bar[steps][:, None, None]
        noisy = scale.sqrt() * clean + (1 - scale).sqrt() * noise
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(noisy, steps, cond), noise)
        loss.backward()
        optimizer.step()
        return {"denoising": loss.item()}

    run.train_epochs(step)
    model.eval()
    return model, hyper


def sample(
    model: Denoiser, conditions: npt.NDArray[np.float32], generator_rng: torch.Generator
) -> npt.NDArray[np.float64]:
    """(n, height, width) designs in [0, 1] by DDPM's ancestral sampler, one per condition row
    (the caller puts the denoiser in eval mode and turns gradients off)."""
    cond = as_tensor(conditions)
    shape = model.design_shape
    betas = cosine_betas()
    alphas = 1 - betas
    alpha_bar = torch.cumprod(alphas, dim=0)
    x = torch.randn((len(cond), *shape), generator=generator_rng)
    for step in reversed(range(STEPS)):
        steps = torch.full((len(cond),), step, dtype=torch.long)
        predicted_noise = model(x, steps, cond)
        mean = (x - betas[step] / (1 - alpha_bar[step]).sqrt() * predicted_noise) / alphas[
            step
        ].sqrt()
        if step > 0:
            variance = betas[step] * (1 - alpha_bar[step - 1]) / (1 - alpha_bar[step])
            x = mean + variance.sqrt() * torch.randn(x.shape, generator=generator_rng)
        else:
            x = mean
    return np.clip(((x + 1) / 2).numpy().astype(np.float64), 0.0, 1.0)
