"""A small conditional GAN with a CNN generator (the reference's `cgan_cnn_2d`, scaled down).

The generator maps noise and the normalized conditions to a density field in [0, 1] through a
linear projection and two transposed convolutions; the discriminator sees the field with the
conditions as extra constant channels. Trained with the non-saturating BCE loss.
"""

from __future__ import annotations

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

LATENT = 32
WIDTH = 32
LEARNING_RATE = 2e-4
BETAS = (0.5, 0.999)


class Generator(nn.Module):
    def __init__(self, height: int, width: int, n_conditions: int = 3, latent: int = LATENT):
        super().__init__()
        self.latent = latent
        self.start = (height // 4, width // 4)
        channels = 2 * WIDTH
        self.project = nn.Sequential(
            nn.Linear(latent + n_conditions, channels * self.start[0] * self.start[1]),
            nn.BatchNorm1d(channels * self.start[0] * self.start[1]),
            nn.ReLU(),
        )
        self.upsample = nn.Sequential(
            nn.ConvTranspose2d(channels, WIDTH, 4, stride=2, padding=1),
            nn.BatchNorm2d(WIDTH),
            nn.ReLU(),
            nn.ConvTranspose2d(WIDTH, WIDTH // 2, 4, stride=2, padding=1),
            nn.BatchNorm2d(WIDTH // 2),
            nn.ReLU(),
            nn.Conv2d(WIDTH // 2, 1, 3, padding=1),
            nn.Sigmoid(),
        )

    def forward(self, noise: torch.Tensor, conditions: torch.Tensor) -> torch.Tensor:
        projected = self.project(torch.cat([noise, conditions], dim=1))
        field = projected.view(len(noise), 2 * WIDTH, *self.start)
        return self.upsample(field).squeeze(1)  # type: ignore[no-any-return]


class Discriminator(nn.Module):
    def __init__(self, height: int, width: int, n_conditions: int = 3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1 + n_conditions, WIDTH, 4, stride=2, padding=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(WIDTH, 2 * WIDTH, 4, stride=2, padding=1),
            nn.LeakyReLU(0.2),
            nn.Flatten(),
            nn.Linear(2 * WIDTH * (height // 4) * (width // 4), 1),
        )

    def forward(self, designs: torch.Tensor, conditions: torch.Tensor) -> torch.Tensor:
        planes = condition_planes(conditions, designs.shape[1], designs.shape[2])
        return self.features(torch.cat([designs[:, None], planes], dim=1)).squeeze(1)  # type: ignore[no-any-return]


def sample(
    gen: Generator, conditions: npt.NDArray[np.float32], generator_rng: torch.Generator
) -> npt.NDArray[np.float64]:
    """(n, height, width) designs in [0, 1], one per normalized condition row (the caller puts the
    generator in eval mode and turns gradients off)."""
    noise = torch.randn(len(conditions), LATENT, generator=generator_rng)
    designs = gen(noise, as_tensor(conditions))
    return np.clip(designs.numpy().astype(np.float64), 0.0, 1.0)


def fit(run: TrainingRun) -> tuple[Generator, dict[str, Any]]:
    """Trains with the non-saturating BCE loss; returns the generator (in eval mode) and the
    hyperparameters needed to rebuild it."""
    hyper = run.network_shape()
    real_all, cond_all = as_tensor(run.designs), as_tensor(run.conditions)
    gen, disc = Generator(**hyper), Discriminator(**hyper)
    gen_opt = torch.optim.Adam(gen.parameters(), lr=LEARNING_RATE, betas=BETAS)
    disc_opt = torch.optim.Adam(disc.parameters(), lr=LEARNING_RATE, betas=BETAS)
    bce = nn.BCEWithLogitsLoss()

    def step(index: torch.Tensor) -> dict[str, float]:
        real, cond = real_all[index], cond_all[index]
        noise = torch.randn(len(index), gen.latent, generator=run.generator_rng)
        fake = gen(noise, cond)
        ones, zeros = torch.ones(len(index)), torch.zeros(len(index))
        disc_opt.zero_grad()
        disc_loss = bce(disc(real, cond), ones) + bce(disc(fake.detach(), cond), zeros)
        disc_loss.backward()
        disc_opt.step()
        gen_opt.zero_grad()
        gen_loss = bce(disc(fake, cond), ones)
        gen_loss.backward()
        gen_opt.step()
        return {"generator": gen_loss.item(), "discriminator": disc_loss.item()}

    run.train_epochs(step)
    gen.eval()
    return gen, hyper
