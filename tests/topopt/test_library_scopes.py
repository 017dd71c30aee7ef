"""What one photonics run changes in ceviche and EngiBench is seen by its own context only.

Each test puts one thread or asyncio task inside a scope (the fast solver, the streamed Adam
loop, the pinned mode start) and, while it is there, calls the same library function from another
thread or task: that call must get the library's own behaviour. A process-wide patch, or one kept
per thread (asyncio tasks share their thread), fails these tests.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp

from workbench_plugins.topopt import engine
from workbench_plugins.topopt import photonics_fast as pf
from workbench_plugins.topopt.library_overrides import library_override

BESIDE = ("thread", "asyncio task")


def run_beside(
    scope: Callable[[], AbstractContextManager[Any]],
    inside: Callable[[], Any],
    beside: Callable[[], Any],
    how: str,
) -> tuple[Any, Any]:
    """While one thread/task is inside `scope`, run `beside()` from another thread/task (not in
    the scope); then run `inside()` within the scope. Returns (inside's, beside's) results."""
    if how == "thread":
        entered, beside_done = threading.Event(), threading.Event()

        def owner() -> Any:
            with scope():
                entered.set()
                beside_done.wait(60)
                return inside()

        with ThreadPoolExecutor(1) as pool:
            owned = pool.submit(owner)
            entered.wait(60)
            try:
                beside_result = beside()
            finally:
                beside_done.set()
            return owned.result(60), beside_result

    async def both() -> tuple[Any, Any]:
        entered, beside_done = asyncio.Event(), asyncio.Event()

        async def owner() -> Any:
            with scope():
                entered.set()
                await beside_done.wait()
                return inside()

        async def other() -> Any:
            await entered.wait()
            try:
                return beside()
            finally:
                beside_done.set()

        return await asyncio.gather(owner(), other())

    inside_result, beside_result = asyncio.run(both())
    return inside_result, beside_result


def grid_system() -> tuple[sp.csr_matrix, np.ndarray]:
    rng = np.random.default_rng(0)
    n = 30
    matrix = sp.diags([np.full(n - 1, -1.0), 4.0 + rng.random(n), np.full(n - 1, -1.0)], [-1, 0, 1])
    return sp.csr_matrix(matrix, dtype=complex), np.ones(n, dtype=complex)


@pytest.mark.parametrize("how", BESIDE)
def test_the_fast_solver_is_invisible_beside_its_scope(how: str) -> None:
    import ceviche.primitives

    A, b = grid_system()
    caches: list[pf.FactorCache] = []

    @contextmanager
    def scope() -> Iterator[None]:
        with pf.fast_photonics_solves() as cache:
            caches.append(cache)
            yield

    def solves_so_far() -> int:
        return caches[0].stats.solves

    def beside() -> int:
        ceviche.primitives.solve_linear(A, b)  # ceviche's own solver: the cache sees nothing
        return solves_so_far()

    def inside() -> int:
        ceviche.primitives.solve_linear(A, b)
        return solves_so_far()

    inside_count, beside_count = run_beside(scope, inside, beside, how)
    assert beside_count == 0
    assert inside_count == 1


@pytest.mark.parametrize("how", BESIDE)
def test_streamed_adam_iterations_are_only_this_contexts(how: str) -> None:
    streamed: list[int] = []

    def beside() -> int:
        runs = bare_adam_run()
        return len(streamed) if runs == 3 else -1  # the library's callbacks still all ran

    def inside() -> int:
        bare_adam_run()
        return len(streamed)

    def scope() -> AbstractContextManager[None]:
        return pf._stream_adam_iterations(lambda step, rho, objective: streamed.append(step))

    inside_count, beside_count = run_beside(scope, inside, beside, how)
    assert beside_count == 0
    assert inside_count == 3


@pytest.mark.parametrize("how", BESIDE)
def test_the_pinned_mode_start_is_only_this_contexts(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ceviche.modes
    import scipy.sparse.linalg

    def recording_eigs(matrix: Any, k: int, v0: Any = None, **kwargs: Any) -> Any:
        started_fixed = v0 is not None and np.array_equal(v0, np.ones(matrix.shape[0]))
        return ("fixed" if started_fixed else "random"), None

    monkeypatch.setattr(scipy.sparse.linalg, "eigs", recording_eigs)
    matrix = sp.identity(4, format="csc")

    def start_used() -> str:
        return ceviche.modes.solver_eigs(matrix, 1, guess_value=1.0)[0]

    inside, beside = run_beside(engine.fixed_mode_start, start_used, start_used, how)
    assert (inside, beside) == ("fixed", "random")
    assert start_used() == "random"  # and nothing is left behind


@pytest.mark.parametrize("how", BESIDE)
def test_quiet_drops_only_this_contexts_prints(how: str, capsys: pytest.CaptureFixture) -> None:
    before = sys.stdout
    run_beside(engine.quiet, lambda: print("inside"), lambda: print("beside"), how)
    assert capsys.readouterr().out == "beside\n"
    assert sys.stdout is before


def test_overrides_compose_and_are_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    library = types.ModuleType("fake_library_for_overrides")
    names = library.__dict__
    names["twice"] = original = lambda x: 2 * x
    monkeypatch.setitem(sys.modules, library.__name__, library)
    override = library_override(library.__name__, "twice")

    with override.layered(lambda proceed, x: proceed(x) + 1):
        with override.layered(lambda proceed, x: proceed(x) * 10):
            assert names["twice"](3) == 70  # (2*3 + 1) * 10
        assert names["twice"](3) == 7
        assert override.active()
    assert names["twice"] is original
    assert not override.active()
    assert library_override(library.__name__, "twice") is override  # one per name


def bare_adam_run() -> int:
    """ceviche's Adam through the name Photonics2D calls; returns how many callbacks it made."""
    from engibench.problems.photonics2d import v0

    seen: list[int] = []
    v0.adam_optimize(
        lambda p: float(np.sum(p**2)),
        np.ones(3),
        lambda p: 2 * p,
        Nsteps=3,
        callback=lambda i, objectives, p: seen.append(i),
        verbose=False,
    )
    return len(seen)


@pytest.mark.slow
def test_a_running_photonics_optimisation_changes_nothing_for_another_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Paused inside engine.optimize (at its first frame), a run's Adam hook, mode start and
    solver are in force for it and absent for a thread beside it."""
    import ceviche.modes
    import scipy.sparse.linalg

    paused, resume = threading.Event(), threading.Event()
    frames: list[engine.Frame] = []
    in_run: dict[str, bool] = {}

    def pause_at_first_frame(frame: engine.Frame) -> None:
        frames.append(frame)
        if len(frames) == 1:
            in_run["solver"] = pf.CEVICHE_SOLVE.active()
            paused.set()
            resume.wait(60)

    config = engine.parse_config("photonics2d", TWO_RUNS["a"])
    with ThreadPoolExecutor(1) as pool:
        run = pool.submit(engine.optimize, "photonics2d", config, 3, pause_at_first_frame)
        assert paused.wait(120)
        try:
            assert bare_adam_run() == 3  # the library's own Adam: no frame of the run's
            assert len(frames) == 1
            assert not pf.CEVICHE_SOLVE.active()
            with monkeypatch.context() as patch:  # the run's modes are solved by now
                patch.setattr(
                    scipy.sparse.linalg, "eigs", lambda m, k, v0=None, **kw: (v0 is None, None)
                )
                random_start, _ = ceviche.modes.solver_eigs(sp.identity(4, format="csc"), 1)
            assert random_start
        finally:
            resume.set()
        result = run.result(120)
    assert in_run == {"solver": True}
    assert [f.iteration for f in frames] == [1, 2]  # the run's own frames only
    assert result.iterations == 2


TWO_RUNS = {
    "a": {"num_elems_x": 70, "num_elems_y": 105, "num_optimization_steps": 2},
    "b": {"num_elems_x": 70, "num_elems_y": 105, "num_optimization_steps": 3, "lambda1": 1.4},
}


@pytest.mark.slow
def test_two_photonics_runs_at_once_each_see_their_own() -> None:
    """Frames, solver cache and mode start of two concurrent runs do not mix: each equals the
    same run made alone, bit for bit (no lock makes them take turns any more)."""

    def run(name: str) -> tuple[list[float], np.ndarray, list[tuple[int, float | None]]]:
        config = engine.parse_config("photonics2d", TWO_RUNS[name])
        frames: list[engine.Frame] = []
        result = engine.optimize("photonics2d", config, seed=3, on_frame=frames.append)
        return result.objective_history, result.design, [(f.iteration, f.objective) for f in frames]

    # alone, too, in a worker thread: the main thread's last bits differ (seen without any
    # concurrency, whatever BLAS does there), and that is not what this test is about
    with ThreadPoolExecutor(1) as pool:
        alone = {name: pool.submit(run, name).result() for name in TWO_RUNS}
    with ThreadPoolExecutor(2) as pool:
        together = dict(zip(TWO_RUNS, pool.map(run, TWO_RUNS), strict=True))
    for name in TWO_RUNS:
        history, design, frames = together[name]
        assert history == alone[name][0]
        assert np.array_equal(design, alone[name][1])
        assert frames == alone[name][2]
    assert len(together["a"][2]) == 2 and len(together["b"][2]) == 3  # one per Adam step
