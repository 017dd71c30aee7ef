"""A conditional Beams2D dataset made on this machine with EngiBench, cached on disk.

The IDEALLab datasets are not downloaded (no hub at run time): conditions (volfrac, forcedist,
rmin) are drawn by a seeded sampler over the dataset's ranges and each optimal design is computed by
EngiBench's own (deterministic) optimizer, the procedure that produced the published dataset. The
resolution is reduced (default 16x32 instead of 50x100): a design then takes about 0.3 s instead
of about 6 s, so a CI-size dataset of 32 designs is made in about 10 s.

The file is named by a hash of everything that determines its content, so a second call with the
same parameters loads it instead of optimizing again, and two machines make the same file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

FORMAT = 1  # bump when the file's layout or the generation procedure changes
CONDITION_NAMES = ("volfrac", "forcedist", "rmin")
# the ranges the workflow suite samples Beams2D conditions from (the dataset's own ranges)
RANGES: dict[str, tuple[float, float]] = {
    "volfrac": (0.15, 0.55),
    "forcedist": (0.0, 1.0),
    "rmin": (1.5, 4.0),
}
SAMPLER_SEED = 0  # the dataset is fixed: the training seed does not change it
TEST_FRACTION = 0.25

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class DatasetSpec:
    """What determines a dataset's content."""

    n_designs: int
    nelx: int
    nely: int
    max_iter: int
    problem_id: str = "beams2d"

    def parameters(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "problem_id": self.problem_id,
            "engibench": metadata.version("engibench"),
            "n_designs": self.n_designs,
            "nelx": self.nelx,
            "nely": self.nely,
            "max_iter": self.max_iter,
            "ranges": {name: list(RANGES[name]) for name in CONDITION_NAMES},
            "sampler_seed": SAMPLER_SEED,
            "test_fraction": TEST_FRACTION,
        }

    def key(self) -> str:
        text = json.dumps(self.parameters(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def file_name(self) -> str:
        return f"{self.problem_id}-{self.nely}x{self.nelx}-n{self.n_designs}-{self.key()}.npz"


@dataclass(frozen=True)
class Beams2DDataset:
    """conditions (n, 3) in CONDITION_NAMES order, designs (n, nely, nelx) in [0, 1], objectives
    (n,) the compliance of each optimal design, test (n,) True for the held-out split."""

    path: Path
    key: str
    conditions: npt.NDArray[np.float64]
    designs: npt.NDArray[np.float64]
    objectives: npt.NDArray[np.float64]
    test: npt.NDArray[np.bool_]

    @property
    def train_indices(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero(~self.test)

    @property
    def test_indices(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.test)

    @property
    def shape(self) -> tuple[int, int]:
        return (int(self.designs.shape[1]), int(self.designs.shape[2]))


def sample_conditions(count: int, seed: int = SAMPLER_SEED) -> npt.NDArray[np.float64]:
    """(count, 3) conditions drawn uniformly over RANGES, rounded as the workflow suite does."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(count):
        volfrac = round(float(rng.uniform(*RANGES["volfrac"])), 2)
        forcedist = round(float(rng.uniform(*RANGES["forcedist"])), 2)
        rmin = round(float(rng.uniform(*RANGES["rmin"])), 1)
        rows.append((volfrac, forcedist, rmin))
    return np.asarray(rows, dtype=np.float64)


def normalized_conditions(conditions: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Conditions scaled to [0, 1] by RANGES: what the models are conditioned on."""
    array = np.asarray(conditions, dtype=np.float64).reshape(-1, len(CONDITION_NAMES))
    low = np.array([RANGES[name][0] for name in CONDITION_NAMES])
    high = np.array([RANGES[name][1] for name in CONDITION_NAMES])
    return ((array - low) / (high - low)).astype(np.float32)


def beams_problem(condition: npt.ArrayLike, nelx: int, nely: int, max_iter: int) -> Any:
    """A fresh EngiBench Beams2D for one condition row (its solver state is per instance)."""
    from engibench.problems.beams2d.v0 import Beams2D

    volfrac, forcedist, rmin = (float(value) for value in np.asarray(condition).ravel())
    config = {
        "volfrac": volfrac,
        "forcedist": forcedist,
        "rmin": rmin,
        "nelx": nelx,
        "nely": nely,
        "max_iter": max_iter,
    }
    return Beams2D(seed=0, config=config)


def compliance(design: npt.ArrayLike, condition: npt.ArrayLike, nelx: int, nely: int) -> float:
    """The simulated objective (compliance, lower is better) of one design under a condition."""
    problem = beams_problem(condition, nelx, nely, max_iter=1)
    return float(np.asarray(problem.simulate(np.asarray(design, dtype=np.float64))).ravel()[0])


def _optimal_design(
    condition: npt.ArrayLike, spec: DatasetSpec
) -> tuple[npt.NDArray[np.float64], float]:
    problem = beams_problem(condition, spec.nelx, spec.nely, spec.max_iter)
    design, _ = problem.optimize(config={"max_iter": spec.max_iter})
    design = np.clip(np.asarray(design, dtype=np.float64), 0.0, 1.0)
    return design, compliance(design, condition, spec.nelx, spec.nely)


def generate(spec: DatasetSpec, progress: Progress | None = None) -> dict[str, npt.NDArray[Any]]:
    """Optimize one design per sampled condition (about 0.3 s each at 16x32)."""
    conditions = sample_conditions(spec.n_designs)
    designs, objectives = [], []
    for index, condition in enumerate(conditions):
        design, objective = _optimal_design(condition, spec)
        designs.append(design)
        objectives.append(objective)
        if progress is not None:
            progress(index + 1, spec.n_designs)
    n_test = max(1, round(spec.n_designs * TEST_FRACTION))
    test = np.zeros(spec.n_designs, dtype=bool)
    test[-n_test:] = True  # the conditions are i.i.d., so the last rows are a fair held-out split
    return {
        "conditions": conditions,
        "designs": np.asarray(designs, dtype=np.float64),
        "objectives": np.asarray(objectives, dtype=np.float64),
        "test": test,
    }


def load_or_generate(
    cache: Path, spec: DatasetSpec, progress: Progress | None = None
) -> Beams2DDataset:
    """The dataset of `spec` from the cache folder, generated and written there first if absent.

    `cache` may also be an existing .npz file made by this module (then it is loaded as is)."""
    if cache.suffix == ".npz":
        if not cache.is_file():
            raise FileNotFoundError(
                f"dataset file {cache} does not exist; pass the cache folder instead and it "
                "is generated there"
            )
        return load(cache)
    if cache.exists() and not cache.is_dir():
        raise NotADirectoryError(f"dataset cache {cache} is a file; give a folder or a .npz file")
    path = cache / spec.file_name()
    if path.is_file():
        return load(path)
    arrays = generate(spec, progress)
    cache.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.{os.getpid()}.part.npz")
    np.savez_compressed(
        partial,
        parameters=json.dumps(spec.parameters()),
        conditions=arrays["conditions"],
        designs=arrays["designs"],
        objectives=arrays["objectives"],
        test=arrays["test"],
    )
    os.replace(partial, path)  # atomic: a concurrent job sees the whole file or none
    return load(path)


def load(path: Path) -> Beams2DDataset:
    try:
        with np.load(path, allow_pickle=False) as stored:
            parameters = json.loads(str(stored["parameters"]))
            arrays = {name: np.asarray(stored[name]) for name in ("conditions", "designs")}
            objectives = np.asarray(stored["objectives"], dtype=np.float64)
            test = np.asarray(stored["test"], dtype=bool)
    except (OSError, KeyError, ValueError) as error:
        raise ValueError(
            f"{path} is not a dataset made by workbench_plugins.hpc.training.dataset ({error}); "
            "delete it and it is generated again"
        ) from error
    key = hashlib.sha256(json.dumps(parameters, sort_keys=True).encode()).hexdigest()[:16]
    return Beams2DDataset(
        path=path,
        key=key,
        conditions=arrays["conditions"].astype(np.float64),
        designs=arrays["designs"].astype(np.float64),
        objectives=objectives,
        test=test,
    )
