"""The fast Photonics2D path gives EngiBench's results (within tolerance) and cleans up after.

Tolerance (same inputs, EngiBench's default path vs the fast path): final densities (binarised
design, and the raw pre-binarisation design) max abs difference <= 1e-6; objective history max
relative difference <= 1e-6. Observed: 0 and ~1e-13.
"""

from __future__ import annotations

import contextlib
import io
import threading
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spl

from workbench_plugins.topopt import photonics_fast as pf
from workbench_plugins.topopt.perf import (
    DESIGN_TOLERANCE,
    OBJECTIVE_RTOL,
    compare_photonics_results,
)

STEPS = 3


def _problem() -> tuple[Any, np.ndarray]:
    from engibench.problems.photonics2d import Photonics2D

    with contextlib.redirect_stdout(io.StringIO()):
        problem = Photonics2D(seed=3)
        start, _ = problem.random_design(noise=0.001)
    return problem, start


def _periodic_grid_matrix(nx: int, ny: int, seed: int = 0) -> sp.csr_matrix:
    """A complex, non-symmetric matrix with the FDFD pattern: periodic 5-point stencil."""
    rng = np.random.default_rng(seed)
    n = nx * ny
    rows, cols, vals = [], [], []
    for ix in range(nx):
        for iy in range(ny):
            k = ix * ny + iy
            rows.append(k)
            cols.append(k)
            vals.append(6.0 + rng.standard_normal() + 1j * rng.standard_normal())
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                rows.append(k)
                cols.append(((ix + dx) % nx) * ny + (iy + dy) % ny)
                vals.append(-1.0 + 0.3 * rng.standard_normal() + 0.2j)
    return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


@pytest.mark.slow
def test_fast_path_matches_engibench_default_path() -> None:
    config = {"num_optimization_steps": STEPS}

    # Reference: EngiBench's default path; the adam hook only observes (no numerics changed).
    problem, start = _problem()
    raw_ref: list[np.ndarray] = []
    with (
        contextlib.redirect_stdout(io.StringIO()),
        pf._stream_adam_iterations(lambda step, rho, obj: raw_ref.append(rho)),
    ):
        reference = problem.optimize(start, config=config)

    problem, start = _problem()
    frames: list[tuple[int, np.ndarray, float]] = []
    with contextlib.redirect_stdout(io.StringIO()):
        fast = pf.optimize_photonics_fast(
            problem, start, config, callback=lambda s, rho, obj: frames.append((s, rho, obj))
        )

    check = compare_photonics_results(reference, fast)
    assert check["max_design_diff"] <= DESIGN_TOLERANCE
    assert check["max_objective_rel_diff"] <= OBJECTIVE_RTOL
    assert check["design_check_pass"] == 1.0
    assert fast[0].dtype == np.float32 and fast[0].shape == (120, 120)
    assert len(fast[1]) == len(reference[1]) == STEPS

    # Raw (pre-binarisation) densities, every iteration.
    assert [f[0] for f in frames] == list(range(1, STEPS + 1))
    assert len(raw_ref) == STEPS
    for (_, rho, _), rho_ref in zip(frames, raw_ref, strict=True):
        assert rho.shape == (120, 120)
        assert np.max(np.abs(rho - rho_ref.reshape(rho.shape))) <= DESIGN_TOLERANCE
    # Streamed objectives are the history's (history[k] holds iteration k's value, k >= 1).
    for step, _, objective in frames[:-1]:
        assert objective == pytest.approx(float(fast[1][step].obj_values[0]), rel=1e-12)


def test_patches_are_restored_and_thread_local() -> None:
    import ceviche.primitives
    from engibench.problems.photonics2d import v0

    original_solve, original_adam = ceviche.primitives.solve_linear, v0.adam_optimize
    A = _periodic_grid_matrix(6, 5)
    b = np.ones(A.shape[0], dtype=complex)
    with pf.fast_photonics_solves() as cache:
        assert ceviche.primitives.solve_linear is not original_solve
        # Another thread, outside any fast context, still gets ceviche's own solver.
        other = threading.Thread(target=lambda: ceviche.primitives.solve_linear(A, b))
        other.start()
        other.join()
        assert cache.stats.solves == 0
        ceviche.primitives.solve_linear(A, b)
        assert cache.stats.factorizations == 1
        with pf._stream_adam_iterations(lambda *_: None):
            assert v0.adam_optimize is not original_adam
        assert v0.adam_optimize is original_adam
    assert ceviche.primitives.solve_linear is original_solve


@pytest.mark.parametrize("backend", pf.available_backends())
@pytest.mark.parametrize("grid_shape", [None, (8, 7)])
def test_factor_cache_serves_forward_and_transposed_solves(
    backend: str, grid_shape: tuple[int, int] | None
) -> None:
    A = _periodic_grid_matrix(8, 7)
    b = np.random.default_rng(1).standard_normal(A.shape[0]) + 0j
    cache = pf.FactorCache(backend=backend, grid_shape=grid_shape)  # type: ignore[arg-type]

    x = cache.solve(A, b)
    x_again = cache.solve(A.copy(), b)
    # ceviche builds A^T from transposed indices: same values, CSR again.
    xt = cache.solve(sp.csr_matrix(A.T), b)
    assert (cache.stats.factorizations, cache.stats.hits, cache.stats.transposed_hits) == (1, 1, 1)
    np.testing.assert_allclose(x, spl.spsolve(A.tocsc(), b), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(x, x_again)
    np.testing.assert_allclose(xt, spl.spsolve(A.T.tocsc(), b), rtol=1e-10, atol=1e-12)

    # A different matrix (one value changed) is a miss, never a stale hit.
    B = A.copy()
    B[0, 0] += 1.0
    cache.solve(B, b)
    assert cache.stats.factorizations == 2


@pytest.mark.parametrize("shape", [(120, 120), (60, 110), (5, 4), (2, 2)])
def test_nested_dissection_is_a_permutation(shape: tuple[int, int]) -> None:
    perm = pf.torus_nested_dissection(*shape)
    assert np.array_equal(np.sort(perm), np.arange(shape[0] * shape[1]))


def test_perf_targets_are_checked() -> None:
    from workbench_plugins.topopt.perf import missed_targets

    good_p = {"speedup": 6.9, "design_check_pass": 1.0}
    good_b = {"overhead_ratio": 1.007, "bit_identical": 1.0, "all_frames_delivered": 1.0}
    assert missed_targets(good_p, good_b) == []
    assert "speed-up" in missed_targets({**good_p, "speedup": 2.5}, good_b)[0]
    assert "differs" in missed_targets({**good_p, "design_check_pass": 0.0}, good_b)[0]
    assert "streaming" in missed_targets(good_p, {**good_b, "overhead_ratio": 1.2})[0]
