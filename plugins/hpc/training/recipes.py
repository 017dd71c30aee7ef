"""What a training run is: the algorithm, the problem, the seed, the epochs and the (small) sizes,
and the command line that runs it on a cluster node.

The defaults are sized for a CI-size run: a few epochs on 32 designs of 16x32 elements train in
a few seconds on two busy cores; the dataset behind them is generated once (about 15 s) and
cached.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ALGORITHMS = ("cgan_cnn_2d", "diffusion_2d_cond")
PROBLEMS = ("beams2d",)
TRAIN_MODULE = "workbench_plugins.hpc.training.train"

Algorithm = Literal["cgan_cnn_2d", "diffusion_2d_cond"]


class TrainingRecipe(BaseModel):
    """One training run. The sizes default small; the paper trains 100 epochs on the full
    dataset, which here would be `epochs=100` and larger `n_designs`/`nelx`/`nely`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    algorithm: Algorithm = Field(description="cgan_cnn_2d or diffusion_2d_cond")
    problem_id: Literal["beams2d"] = "beams2d"
    seed: int = Field(ge=0, le=2**31 - 1, description="seeds torch, numpy and the sampler")
    epochs: int = Field(ge=1, le=10_000)
    n_designs: int = Field(32, ge=4, le=5000, description="designs in the generated dataset")
    nelx: int = Field(32, ge=16, le=200, description="elements in x of each design")
    nely: int = Field(16, ge=8, le=100, description="elements in y of each design")
    max_iter: int = Field(40, ge=1, le=1000, description="optimizer iterations per dataset design")
    batch_size: int = Field(8, ge=1, le=1024)
    n_samples: int = Field(8, ge=1, le=1000, description="designs generated after training")

    @model_validator(mode="after")
    def _sizes_fit_the_models(self) -> TrainingRecipe:
        # the generators upsample twice by 2; the filter radius must fit the domain (EngiBench)
        if self.nelx % 4 or self.nely % 4:
            raise ValueError(f"nelx and nely must be multiples of 4 (got {self.nelx}x{self.nely})")
        return self


def training_argv(
    recipe: TrainingRecipe, python: str, out_dir: str | PurePath, dataset: str | PurePath
) -> list[str]:
    """The argument vector of the training job (quoted once, by whoever renders the script).

    `dataset` is the cache folder of the generated datasets on the machine that trains: the job
    reuses one generated there before, or generates it (the sizes are in the argv)."""
    return [
        python,
        "-m",
        TRAIN_MODULE,
        "--algorithm",
        recipe.algorithm,
        "--problem",
        recipe.problem_id,
        "--seed",
        str(recipe.seed),
        "--epochs",
        str(recipe.epochs),
        "--n-designs",
        str(recipe.n_designs),
        "--nelx",
        str(recipe.nelx),
        "--nely",
        str(recipe.nely),
        "--max-iter",
        str(recipe.max_iter),
        "--batch-size",
        str(recipe.batch_size),
        "--n-samples",
        str(recipe.n_samples),
        "--dataset",
        str(dataset),
        "--out",
        str(out_dir),
    ]
