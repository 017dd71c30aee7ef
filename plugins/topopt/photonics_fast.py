"""Faster Photonics2D optimisation: one sparse LU factorisation per matrix, reused.

EngiBench's Photonics2D optimises through ceviche, whose sparse-solve primitive calls
``scipy.sparse.linalg.spsolve`` for every solve. Per Adam step that is six factorisations of a
14,400-unknown complex FDFD matrix: the objective is evaluated once on its own and once more inside
the reverse-mode jacobian (same matrices, two wavelengths), and each adjoint solve uses the
transposed matrix. spsolve's default SuperLU ordering (COLAMD with partial pivoting) also fills in
far more than needed for this structurally symmetric 5-point stencil.

:func:`fast_photonics_solves` sends ceviche's direct solves made in the calling context through a
:class:`~.photonics_factors.FactorCache`, which

* factorises each distinct matrix once and keeps the last few factors, so the repeated forward
  solve and the adjoint solve (``A^T x = b``, served by the same factor with ``trans="T"``) cost a
  triangular solve only; a cache hit needs the matrix to be bit-identical, so reuse never changes
  which system is solved;
* factorises with SuperLU under a fill-reducing ordering suited to the stencil: a nested
  dissection of the (periodic) FDFD grid computed once per sparsity pattern, symmetric-mode
  threshold pivoting (``MMD_AT_PLUS_A`` when the grid shape is unknown); UMFPACK from cvxopt is an
  alternative backend;

and caps the BLAS thread pools while it runs (spinning idle BLAS workers slowed SuperLU ~3x on
2 cores). ceviche's solver is replaced for the calling context only (see
:mod:`.library_overrides`): another thread or asyncio task keeps ceviche's own solver.

:func:`optimize_photonics_fast` runs ``Photonics2D.optimize`` under it (same result contract) and
can stream every iteration to a callback. Results equal EngiBench's default path up to
floating-point rounding of the direct solves (relative ~1e-13 per solve); see
tests/topopt/test_photonics_fast.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from workbench_plugins.topopt.library_overrides import Layer, library_override
from workbench_plugins.topopt.photonics_factors import (
    Backend,
    FactorCache,
    SolveStats,
    available_backends,
    torus_nested_dissection,
)

IterationCallback = Callable[[int, npt.NDArray[np.float64], float], None]

__all__ = [
    "Backend",
    "FactorCache",
    "IterationCallback",
    "SolveStats",
    "available_backends",
    "fast_photonics_solves",
    "optimize_photonics_fast",
    "torus_nested_dissection",
]

# ceviche's sp_solve primitive (forward and adjoint) looks `solve_linear` up in
# ceviche.primitives at call time; Photonics2D calls `adam_optimize` as imported into its module.
CEVICHE_SOLVE = library_override("ceviche.primitives", "solve_linear")
PHOTONICS_ADAM = library_override("engibench.problems.photonics2d.v0", "adam_optimize")


# --------------------------------------------------------------------------- solves


@contextmanager
def fast_photonics_solves(
    backend: Backend = "auto",
    max_entries: int = 4,
    grid_shape: tuple[int, int] | None = None,
    blas_threads: int | None = 1,
) -> Iterator[FactorCache]:
    """Route ceviche's direct sparse solves made in this context through a :class:`FactorCache`.

    Only calls from this context (this thread or asyncio task, and the tasks and
    ``asyncio.to_thread`` calls it starts) use the cache; others still get ceviche's own solver.
    Yields the cache (its ``stats`` say how many factorisations were done). ``grid_shape`` (the
    FDFD grid, e.g. ``(num_elems_x, num_elems_y)``) lets the SuperLU backend use a
    nested-dissection ordering.

    ``blas_threads`` caps numpy's/scipy's BLAS thread pools (via threadpoolctl when installed)
    while any fast context is open: the loop is single-threaded sparse LU plus small dense ops, and
    idle OpenBLAS workers spin-waiting between those ops steal the other core (SuperLU ran ~3x
    slower beside them on 2 cores). The pools belong to the native library, so this cap is the one
    effect that is process-wide; it changes speed only. ``None`` leaves the pools alone.
    """
    cache = FactorCache(backend=backend, max_entries=max_entries, grid_shape=grid_shape)

    def cached_solve(
        proceed: Callable[..., Any],
        A: sp.spmatrix,  # ceviche's parameter names
        b: npt.NDArray[Any],
        iterative_method: Any = False,
    ) -> npt.NDArray[Any]:
        if iterative_method:  # ceviche's iterative solvers are left as they are
            return proceed(A, b, iterative_method=iterative_method)
        return cache.solve(A, b)

    try:
        with _BLAS_CAP.held(blas_threads), CEVICHE_SOLVE.layered(cached_solve):
            yield cache
    finally:
        cache.clear()


class _SharedBlasCap:
    """A BLAS thread cap held while any user needs it (the first user's limit applies)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._limiter: Any = None  # threadpoolctl limiter, while held

    @contextmanager
    def held(self, threads: int | None) -> Iterator[None]:
        with self._lock:
            if self._users == 0:
                self._limiter = _limit_blas(threads)
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0 and self._limiter is not None:
                    self._limiter.restore_original_limits()
                    self._limiter = None


_BLAS_CAP = _SharedBlasCap()


def _limit_blas(threads: int | None) -> Any:
    if threads is None:
        return None
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: only a speed matter
        return None
    return threadpool_limits(limits=threads, user_api="blas")


# --------------------------------------------------------------------------- optimisation


def _streaming_adam(report: IterationCallback) -> Layer:
    """A layer over ceviche's adam_optimize also reporting each (step, rho, objective).

    Photonics2D's own callback runs at the start of each iteration with the objective list so far
    and the parameters about to be evaluated; we chain onto it and report each objective with the
    design it was evaluated on (1-based step; the last one once Adam returns).
    """

    def streaming_adam(
        proceed: Callable[..., Any], objective: Any, params: Any, jac: Any, **kwargs: Any
    ) -> Any:
        inner = kwargs.get("callback")
        evaluated: list[npt.NDArray[np.float64]] = []  # design evaluated in the previous iteration

        def chained(iteration: int, of_list: list[Any], rho_flat: Any) -> None:
            if inner is not None:
                inner(iteration, of_list, rho_flat)
            if of_list and evaluated:
                report(len(of_list), evaluated.pop(), float(np.real(of_list[-1])))
            evaluated.clear()
            evaluated.append(np.array(rho_flat, dtype=np.float64))

        kwargs["callback"] = chained
        params_out, of_list = proceed(objective, params, jac, **kwargs)
        if of_list and evaluated:
            report(len(of_list), evaluated.pop(), float(np.real(of_list[-1])))
        return params_out, of_list

    return streaming_adam


@contextmanager
def _stream_adam_iterations(callback: IterationCallback) -> Iterator[None]:
    """Report every Adam iteration of Photonics2D.optimize (in this context) to ``callback``.

    Photonics2D has no progress hook; its ``adam_optimize`` is replaced for this context only.
    """
    with PHOTONICS_ADAM.layered(_streaming_adam(callback)):
        yield


def optimize_photonics_fast(
    problem: Any,
    starting_point: npt.NDArray[Any] | None = None,
    config: dict[str, Any] | None = None,
    callback: IterationCallback | None = None,
    *,
    backend: Backend = "auto",
) -> tuple[npt.NDArray[np.float32], list[Any]]:
    """``problem.optimize(starting_point, config)`` for a Photonics2D problem, with fast solves.

    Same result contract as ``Photonics2D.optimize``: the binarised design (float32,
    ``(num_elems_x, num_elems_y)``) and the ``OptiStep`` history. ``starting_point=None`` uses the
    problem's offline noise-field start (``random_design(noise=0.001)``, never the dataset).
    ``callback(step, rho, objective)`` is called once per Adam iteration with the raw design
    (``num_elems_x, num_elems_y``) that was evaluated and its objective (overlap - penalty).
    Not safe for two threads optimising the same problem instance (Photonics2D keeps state on it).
    """
    if starting_point is None:
        starting_point, _ = problem.random_design(noise=0.001)
    shape = (problem.num_elems_x, problem.num_elems_y)

    with ExitStack() as stack:
        stack.enter_context(fast_photonics_solves(backend=backend, grid_shape=shape))
        if callback is not None:
            stack.enter_context(_stream_adam_iterations(_reshaping(callback, shape)))
        return problem.optimize(starting_point, config=config)


def _reshaping(callback: IterationCallback, shape: tuple[int, int]) -> IterationCallback:
    """`callback` given each flat design reshaped to the grid."""

    def reshaped(step: int, rho: npt.NDArray[np.float64], objective: float) -> None:
        callback(step, rho.reshape(shape), objective)

    return reshaped
