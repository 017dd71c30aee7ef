"""The optimisation run in a worker process (module level: a spawned worker imports it by name).

Each iteration is reported as `reporter.progress(fraction, "iteration", iteration=i,
objective=..., design=<numpy array>, problem_type=...)`; a set cancel flag stops the run at the
next iteration with `JobCancelled`, so no result (and no artifact) is produced.
"""

from __future__ import annotations

import time
from typing import Any

from workbench.core.jobs import JobCancelled, Reporter
from workbench_plugins.topopt import engine

FINISHED = "finished"  # the last progress event; its data holds engibench_s and streaming_s


def run_optimization(
    reporter: Reporter, problem_type: str, config: dict[str, Any], seed: int
) -> dict[str, Any]:
    parsed = engine.parse_config(problem_type, config)
    planned = (
        parsed.max_iter
        if isinstance(parsed, engine.Beams2DConfig)
        else parsed.num_optimization_steps
    )

    streaming_s = 0.0  # time spent handing frames out: ours, not EngiBench's

    def report(frame: engine.Frame) -> None:
        nonlocal streaming_s
        if reporter.cancelled:
            raise engine.OptimizationCancelled()
        started = time.perf_counter()
        reporter.progress(
            min(1.0, (frame.iteration + 1) / planned),
            "iteration",
            iteration=frame.iteration,
            objective=frame.objective,
            design=frame.design,
            problem_type=problem_type,
        )
        streaming_s += time.perf_counter() - started

    engine.problem_class(problem_type)  # a cold worker's import is overhead, not EngiBench
    started = time.perf_counter()
    try:
        result = engine.optimize(problem_type, parsed, seed, on_frame=report)
    except engine.OptimizationCancelled:
        raise JobCancelled() from None
    reporter.progress(1.0, "simulating the initial and the final design")
    # fresh problem instances: Beams2D would otherwise reuse the optimiser's solver state
    initial_objectives = engine.simulate(problem_type, parsed, result.initial_design, seed)
    final_objectives = engine.simulate(problem_type, parsed, result.design, seed)
    engibench_s = time.perf_counter() - started - streaming_s
    reporter.progress(1.0, FINISHED, engibench_s=engibench_s, streaming_s=streaming_s)
    return {
        "design": result.design,
        "initial_design": result.initial_design,
        "objective_history": result.objective_history,
        "initial_objectives": initial_objectives,
        "final_objectives": final_objectives,
    }
