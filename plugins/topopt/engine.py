"""EngiBench Beams2D and Photonics2D, offline, with typed configs and live iterations.

Never needs the network: the hub flags are set before EngiBench is imported, and nothing here
touches `.dataset` or dataset-backed random designs. Starting points are each problem's own
deterministic default (Beams2D: uniform volfrac, as `optimize(starting_point=None)`; Photonics2D:
0.5 in the design region plus the problem's seeded 0.001 noise).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Literal

# Set before any EngiBench/datasets import, so a stray hub access fails at once instead of hanging.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from threadpoolctl import threadpool_limits

ProblemType = Literal["beams2d", "photonics2d"]
PROBLEM_TYPES: tuple[str, ...] = ("beams2d", "photonics2d")


class EngineError(ValueError):
    """Bad input to the engine; the message names the field or file and what to do."""


class OptimizationCancelled(Exception):
    """Raised from an iteration callback to stop an optimisation."""


# -- configs ----------------------------------------------------------------------------------
class _StrictConfig(BaseModel):
    # NaN and infinities are refused everywhere; unknown keys are errors, not silently ignored.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, frozen=True)


class Beams2DConfig(_StrictConfig):
    volfrac: float = Field(0.35, gt=0, le=1, description="target volume fraction of material")
    rmin: float = Field(2.0, gt=0, description="filter radius (minimum feature size), elements")
    forcedist: float = Field(0.0, ge=0, le=1, description="force position, 0 = left, 1 = right")
    overhang_constraint: bool = False
    max_iter: int = Field(100, ge=1, le=1000, description="iteration limit")
    nelx: int = Field(100, ge=10, le=1000, description="elements in x")
    nely: int = Field(50, ge=10, le=1000, description="elements in y")

    @model_validator(mode="after")
    def _rmin_fits(self) -> Beams2DConfig:
        if self.rmin > max(self.nelx, self.nely):
            raise ValueError(f"rmin={self.rmin} must be at most max(nelx, nely)")
        return self

    @property
    def conditions(self) -> dict[str, Any]:
        return self.model_dump(include={"volfrac", "rmin", "forcedist", "overhang_constraint"})

    @property
    def design_shape(self) -> tuple[int, int]:
        return (self.nely, self.nelx)


class Photonics2DConfig(_StrictConfig):
    lambda1: float = Field(1.5, gt=0, le=10, description="first wavelength, micrometres")
    lambda2: float = Field(1.3, gt=0, le=10, description="second wavelength, micrometres")
    blur_radius: int = Field(2, ge=0, le=10, description="density blur radius, pixels")
    num_optimization_steps: int = Field(200, ge=1, le=2000, description="Adam steps")
    # The design region is the grid minus 30 px of PML and spacing on each side.
    num_elems_x: int = Field(120, ge=70, le=400, description="grid cells in x")
    num_elems_y: int = Field(120, ge=105, le=400, description="grid cells in y")

    @property
    def conditions(self) -> dict[str, Any]:
        return self.model_dump(include={"lambda1", "lambda2", "blur_radius"})

    @property
    def design_shape(self) -> tuple[int, int]:
        return (self.num_elems_x, self.num_elems_y)


ProblemConfig = Beams2DConfig | Photonics2DConfig
CONFIG_MODELS: dict[str, type[_StrictConfig]] = {
    "beams2d": Beams2DConfig,
    "photonics2d": Photonics2DConfig,
}


def check_problem_type(problem_type: str) -> str:
    name = str(problem_type).strip().lower()
    if name not in CONFIG_MODELS:
        raise EngineError(
            f"Unknown problem {problem_type!r}; known problems: {', '.join(PROBLEM_TYPES)}."
        )
    return name


def describe_config_errors(error: ValidationError, prefix: str = "problem_config") -> str:
    parts = []
    for item in error.errors(include_url=False):
        where = ".".join([prefix, *(str(p) for p in item["loc"])])
        parts.append(f"{where}: {item['msg']} (got {item.get('input')!r})")
    return "; ".join(parts)


def parse_config(problem_type: str, config: dict[str, Any] | None) -> ProblemConfig:
    """Validate a config before anything runs; errors name each field."""
    model = CONFIG_MODELS[check_problem_type(problem_type)]
    try:
        return model.model_validate(config or {})  # type: ignore[return-value]
    except ValidationError as error:
        raise EngineError(describe_config_errors(error)) from None


def config_sha256(problem_type: str, config: ProblemConfig) -> str:
    text = f"{problem_type}:{config.model_dump_json()}"
    return hashlib.sha256(text.encode()).hexdigest()


# -- designs ------------------------------------------------------------------------------------
def design_sha256(design: npt.NDArray) -> str:
    """Identity of a density field: float64 values in C order plus the shape."""
    values = np.ascontiguousarray(design, dtype=np.float64)
    digest = hashlib.sha256(str(values.shape).encode())
    digest.update(values.tobytes())
    return digest.hexdigest()


def check_design(design: Any, config: ProblemConfig) -> npt.NDArray[np.float64]:
    array = np.asarray(design, dtype=np.float64)
    if array.shape != config.design_shape:
        raise EngineError(
            f"The design has shape {list(array.shape)} but this problem needs "
            f"{list(config.design_shape)} (rows, columns)."
        )
    if not np.all(np.isfinite(array)):
        raise EngineError("The design contains NaN or infinite densities.")
    if array.min() < 0 or array.max() > 1:
        raise EngineError(
            f"Densities must lie in [0, 1]; this design spans [{array.min():.3g}, "
            f"{array.max():.3g}]."
        )
    return array


def design_violations(problem_type: str, config: ProblemConfig, design: npt.NDArray) -> list[str]:
    """EngiBench's own design checks: inside the design space, and each of the problem's design
    constraints (Beams2D: mean density within 0.01 of volfrac; Photonics2D has none). The
    config's own field checks are left out: they judge the request, not the design."""
    design = check_design(design, config)
    problem = create(problem_type, config)
    values = config.model_dump(exclude={"num_elems_x", "num_elems_y"})
    if isinstance(config, Photonics2DConfig):
        design = design.astype(np.float32)  # its design space is float32, as simulate() passes
    found = [] if problem.design_space.contains(design) else ["design outside the design space"]
    for constraint in problem.design_constraints:
        violation = constraint.check_dict({"design": design, **values})
        if violation is not None:
            found.append(str(violation))
    return found


def engibench_version() -> str:
    """The installed EngiBench, as recorded with candidates and ground truths."""
    return metadata.version("engibench")


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """EngiBench and ceviche print progress; keep stdout clean for JSON output."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def problem_class(problem_type: str) -> Any:
    """The EngiBench class (imported on first use: the import takes 1-2 s)."""
    if check_problem_type(problem_type) == "beams2d":
        from engibench.problems.beams2d.v0 import Beams2D

        return Beams2D
    from engibench.problems.photonics2d.v0 import Photonics2D

    _pin_mode_solver_start()
    return Photonics2D


def _pin_mode_solver_start() -> None:
    """ceviche finds Photonics2D's port modes with ARPACK from a random start vector, so one
    design simulated twice differs by ~1e-14 and a 20-step history by ~1e-9. A fixed start makes
    every run bit-identical; the converged modes are the same to ARPACK's tolerance."""
    import ceviche.modes
    import scipy.sparse.linalg

    if getattr(ceviche.modes.solver_eigs, "fixed_start", False):
        return

    def solver_eigs(matrix: Any, count: int, guess_value: float = 1.0) -> Any:
        start = np.ones(matrix.shape[0], dtype=complex)
        return scipy.sparse.linalg.eigs(matrix, k=count, sigma=guess_value, v0=start, which="LM")

    solver_eigs.fixed_start = True  # type: ignore[attr-defined]
    ceviche.modes.solver_eigs = solver_eigs


def create(problem_type: str, config: ProblemConfig, seed: int = 0) -> Any:
    """A fresh EngiBench problem (Beams2D keeps solver state across calls: never reuse one)."""
    cls = problem_class(problem_type)
    with quiet():
        if isinstance(config, Beams2DConfig):
            return cls(seed=seed, config=config.model_dump())
        return cls(
            seed=seed,
            config=config.model_dump(exclude={"num_elems_x", "num_elems_y"}),
            num_elems_x=config.num_elems_x,
            num_elems_y=config.num_elems_y,
        )


def starting_design(problem_type: str, config: ProblemConfig, seed: int = 0) -> npt.NDArray:
    """The deterministic default start (never a dataset sample)."""
    if isinstance(config, Beams2DConfig):
        return np.full(config.design_shape, config.volfrac, dtype=np.float64)
    problem = create(problem_type, config, seed)
    with quiet():
        start, _ = problem.random_design(noise=0.001)  # noise given: no dataset access
    return np.asarray(start)


def describe(problem_type: str, config: ProblemConfig | None = None) -> dict[str, Any]:
    problem_type = check_problem_type(problem_type)
    config = config or parse_config(problem_type, None)
    problem = create(problem_type, config)
    space = problem.design_space
    return {
        "problem_type": problem_type,
        "design_space": {
            "shape": list(space.shape),
            "low": float(np.min(space.low)),
            "high": float(np.max(space.high)),
            "dtype": str(space.dtype),
        },
        "objectives": [[name, direction.name.lower()] for name, direction in problem.objectives],
        "conditions": config.conditions,
        "conditions_keys": list(config.conditions),
        "config": config.model_dump(),
        "dataset_id": problem.dataset_id,
    }


def objective_names(problem_type: str) -> list[str]:
    return ["c"] if check_problem_type(problem_type) == "beams2d" else ["total_overlap"]


def simulate(
    problem_type: str, config: ProblemConfig, design: npt.NDArray, seed: int = 0
) -> dict[str, float]:
    design = check_design(design, config)
    problem = create(problem_type, config, seed)  # fresh: no stale solver state
    if isinstance(config, Photonics2DConfig):
        design = design.astype(np.float32)
    # ceviche's sparse LU calls a threaded BLAS gemv whose idle workers spin: beside another busy
    # process on 2 cores one simulation took minutes instead of 0.3 s (the optimiser's fast path
    # pins BLAS the same way). One thread computes the same numbers: each row is one thread's.
    with quiet(), threadpool_limits(limits=1, user_api="blas"):
        values = np.asarray(problem.simulate(design)).ravel()
    return dict(zip(objective_names(problem_type), map(float, values), strict=True))


# -- optimisation -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Frame:
    """One optimiser iteration as it happens."""

    iteration: int
    objective: float | None
    design: npt.NDArray


FrameCallback = Callable[[Frame], None]


@dataclass
class OptimizationResult:
    design: npt.NDArray
    initial_design: npt.NDArray
    objective_history: list[float]
    history: list[Any] = field(default_factory=list)  # EngiBench OptiSteps, untouched

    @property
    def iterations(self) -> int:
        return len(self.objective_history)


def optimize(
    problem_type: str,
    config: ProblemConfig,
    seed: int = 0,
    on_frame: FrameCallback | None = None,
) -> OptimizationResult:
    """Run EngiBench's own optimiser, calling `on_frame` once per iteration.

    A callback that raises (e.g. `OptimizationCancelled`) stops the run; nothing is returned.
    """
    problem = create(problem_type, config, seed)
    initial = starting_design(problem_type, config, seed)
    if isinstance(config, Beams2DConfig):
        return _optimize_beams(problem, config, initial, on_frame)
    return _optimize_photonics(problem, config, initial, on_frame)


def _optimize_beams(
    problem: Any, config: Beams2DConfig, initial: npt.NDArray, on_frame: FrameCallback | None
) -> OptimizationResult:
    from engibench.problems.beams2d.backend import design_to_image

    # Beams2D.optimize calls self.simulate once per iteration with the current flat design;
    # wrapping it on the instance sees every frame and leaves the arithmetic untouched.
    original_simulate = problem.simulate
    iteration = 0

    def simulate_and_report(design: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal iteration
        compliance = original_simulate(design, *args, **kwargs)
        if on_frame is not None:
            image = design_to_image(np.array(design), config.nelx, config.nely)
            on_frame(Frame(iteration, float(np.asarray(compliance).ravel()[0]), image))
        iteration += 1
        return compliance

    problem.simulate = simulate_and_report
    try:
        with quiet():
            # starting_point=None: EngiBench's default; optimize() rebuilds its settings from
            # its own `config` argument, so the iteration limit must be passed here
            design, history = problem.optimize(config={"max_iter": config.max_iter})
    finally:
        del problem.simulate
    objectives = [float(np.asarray(step.obj_values).ravel()[0]) for step in history]
    return OptimizationResult(np.asarray(design), initial, objectives, list(history))


_ADAM_PATCH_LOCK = threading.Lock()  # the patch is module-wide; one photonics run at a time


def _optimize_photonics(
    problem: Any, config: Photonics2DConfig, initial: npt.NDArray, on_frame: FrameCallback | None
) -> OptimizationResult:
    from engibench.problems.photonics2d import v0

    original_adam = v0.adam_optimize
    shape = config.design_shape

    # Photonics2D builds its own adam callback; chain ours behind it to see every raw design.
    def adam_with_frames(*args: Any, callback: Any = None, **kwargs: Any) -> Any:
        def chained(iteration: int, objectives: list, rho_flat: Any) -> None:
            if callback is not None:
                callback(iteration, objectives, rho_flat)
            if on_frame is not None and objectives:
                design = np.array(rho_flat).reshape(shape)
                on_frame(Frame(iteration, float(objectives[-1]), design))

        return original_adam(*args, callback=chained, **kwargs)

    from workbench_plugins.topopt.photonics_fast import fast_photonics_solves

    # One factorisation per wavelength serves forward and adjoint solves (see photonics_fast):
    # same designs as EngiBench's default path, about 5x faster.
    with _ADAM_PATCH_LOCK:
        v0.adam_optimize = adam_with_frames
        try:
            with quiet(), fast_photonics_solves(grid_shape=shape):
                design, history = problem.optimize(initial.astype(np.float32))
        finally:
            v0.adam_optimize = original_adam
    objectives = [float(np.asarray(step.obj_values).ravel()[0]) for step in history]
    if on_frame is not None:  # the last Adam step has no callback; show the final design too
        on_frame(Frame(config.num_optimization_steps, None, np.asarray(design)))
    return OptimizationResult(np.asarray(design), initial, objectives, list(history))


# -- rendering ----------------------------------------------------------------------------------
def render_png(design: npt.NDArray, path: os.PathLike[str] | str, title: str = "") -> None:
    """A density image with a colour bar (matplotlib Agg, never a window)."""
    from matplotlib.figure import Figure  # no pyplot: no backend, no window, thread-safe

    figure = Figure(figsize=(8, 4.5), constrained_layout=True)
    axes = figure.add_subplot()
    image = axes.imshow(np.asarray(design, dtype=float), cmap="gray_r", vmin=0.0, vmax=1.0)
    figure.colorbar(image, ax=axes, label="density")
    axes.set_title(title)
    axes.set_xticks([])
    axes.set_yticks([])
    figure.savefig(path, dpi=100)
