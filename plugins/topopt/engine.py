"""EngiBench Beams2D and Photonics2D, offline, with typed configs (problems.py), live iterations.

Never needs the network: the hub flags are set before EngiBench is imported, and nothing here
touches `.dataset` or dataset-backed random designs. Starting points are each problem's own
deterministic default (Beams2D: uniform volfrac, as `optimize(starting_point=None)`; Photonics2D:
0.5 in the design region plus the problem's seeded 0.001 noise).

What a run changes in the libraries (ceviche's mode start and sparse solver, Photonics2D's Adam
loop, the simulation timers) applies to the calls of its own context only (library_overrides.py):
two runs in one process neither see nor wait for each other.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

# Set before any EngiBench/datasets import, so a stray hub access fails at once instead of hanging.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits

from workbench_plugins.topopt.library_overrides import library_override, silenced_stdout
from workbench_plugins.topopt.problems import (
    Beams2DConfig,
    EngineError,
    Photonics2DConfig,
    ProblemConfig,
    check_problem_type,
    parse_config,
)

# Other modules use the configs through the engine (engine.parse_config, engine.EngineError...).
from workbench_plugins.topopt.problems import config_sha256 as config_sha256


class OptimizationCancelled(Exception):
    """Raised from an iteration callback to stop an optimisation."""


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


def quiet() -> contextlib.AbstractContextManager[None]:
    """EngiBench and ceviche print progress; keep stdout clean for JSON output. Only this
    context's prints are dropped: other threads and tasks still print."""
    return silenced_stdout()


def problem_class(problem_type: str) -> Any:
    """The EngiBench class (imported on first use: the import takes 1-2 s)."""
    if check_problem_type(problem_type) == "beams2d":
        from engibench.problems.beams2d.v0 import Beams2D

        return Beams2D
    from engibench.problems.photonics2d.v0 import Photonics2D

    return Photonics2D


# ceviche looks both names up at call time; the replacements apply to one context's calls only
_MODE_SOLVER = library_override("ceviche.modes", "solver_eigs")
_PHOTONICS_ADAM = library_override("engibench.problems.photonics2d.v0", "adam_optimize")


@contextlib.contextmanager
def fixed_mode_start() -> Iterator[None]:
    """ceviche finds Photonics2D's port modes with ARPACK from a random start vector, so one
    design simulated twice differs by ~1e-14 and a 20-step history by ~1e-9. A fixed start makes
    every run bit-identical; the converged modes are the same to ARPACK's tolerance.

    Only mode solves made in this context (its thread, the tasks and threads it hands its context
    to) are pinned; everyone else keeps ceviche's own solver."""
    with _MODE_SOLVER.layered(_eigs_from_fixed_start):
        yield


def _eigs_from_fixed_start(
    proceed: Callable[..., Any], matrix: Any, count: int, guess_value: float = 1.0
) -> Any:
    import scipy.sparse.linalg

    start = np.ones(matrix.shape[0], dtype=complex)
    return scipy.sparse.linalg.eigs(matrix, k=count, sigma=guess_value, v0=start, which="LM")


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


SimulationTimer = Callable[[float], None]
_simulation_timers: ContextVar[tuple[SimulationTimer, ...]] = ContextVar(
    "topopt_simulation_timers", default=()
)


@contextlib.contextmanager
def timing_simulations(report: SimulationTimer) -> Iterator[None]:
    """Report the seconds of each `simulate` call made in this context to `report`.

    The context is this thread's or asyncio task's; tasks and `asyncio.to_thread` calls started
    inside it inherit it, other threads and tasks do not, so two cells in one process each count
    their own simulations only."""
    token = _simulation_timers.set((*_simulation_timers.get(), report))
    try:
        yield
    finally:
        _simulation_timers.reset(token)


def simulate(
    problem_type: str, config: ProblemConfig, design: npt.NDArray, seed: int = 0
) -> dict[str, float]:
    started = time.perf_counter()
    try:
        return _simulate(problem_type, config, design, seed)
    finally:
        timers = _simulation_timers.get()
        elapsed = time.perf_counter() - started
        for report in timers:
            report(elapsed)


def _simulate(
    problem_type: str, config: ProblemConfig, design: npt.NDArray, seed: int
) -> dict[str, float]:
    design = check_design(design, config)
    problem = create(problem_type, config, seed)  # fresh: no stale solver state
    modes: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if isinstance(config, Photonics2DConfig):
        design = design.astype(np.float32)
        modes = fixed_mode_start()
    # ceviche's sparse LU calls a threaded BLAS gemv whose idle workers spin: beside another busy
    # process on 2 cores one simulation took minutes instead of 0.3 s (the optimiser's fast path
    # pins BLAS the same way). One thread computes the same numbers: each row is one thread's.
    with quiet(), threadpool_limits(limits=1, user_api="blas"), modes:
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


def _optimize_photonics(
    problem: Any, config: Photonics2DConfig, initial: npt.NDArray, on_frame: FrameCallback | None
) -> OptimizationResult:
    from workbench_plugins.topopt.photonics_fast import fast_photonics_solves

    shape = config.design_shape
    # One factorisation per wavelength serves forward and adjoint solves (see photonics_fast):
    # same designs as EngiBench's default path, about 5x faster. Every replacement below applies
    # to this context's calls only, so concurrent runs neither see nor wait for each other.
    with (
        _PHOTONICS_ADAM.layered(_adam_layer_with_frames(shape, on_frame)),
        quiet(),
        fixed_mode_start(),
        fast_photonics_solves(grid_shape=shape),
    ):
        design, history = problem.optimize(initial.astype(np.float32))
    objectives = [float(np.asarray(step.obj_values).ravel()[0]) for step in history]
    if on_frame is not None:  # the last Adam step has no callback; show the final design too
        on_frame(Frame(config.num_optimization_steps, None, np.asarray(design)))
    return OptimizationResult(np.asarray(design), initial, objectives, list(history))


def _adam_layer_with_frames(
    shape: tuple[int, int], on_frame: FrameCallback | None
) -> Callable[..., Any]:
    """A layer over ceviche's adam_optimize (see library_overrides) reporting every raw design.

    Photonics2D builds its own adam callback; ours is chained behind it."""

    def adam_with_frames(
        proceed: Callable[..., Any], *args: Any, callback: Any = None, **kwargs: Any
    ) -> Any:
        def chained(iteration: int, objectives: list[Any], rho_flat: Any) -> None:
            if callback is not None:
                callback(iteration, objectives, rho_flat)
            if on_frame is not None and objectives:
                design = np.array(rho_flat).reshape(shape)
                on_frame(Frame(iteration, float(objectives[-1]), design))

        return proceed(*args, callback=chained, **kwargs)

    return adam_with_frames


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
