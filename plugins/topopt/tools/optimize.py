"""optimize_design: the optimiser in a worker job, its designs and history stored, a candidate.

Optimised designs become ledger candidates with their mechanical invariants adjudicated as
evidence.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.jobs import JobCancelled, JobFailed
from workbench.core.store import Artifact
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.topopt import candidates, designs, engine, optimization_worker
from workbench_plugins.topopt.tools.arguments import OptimizeArgs
from workbench_plugins.topopt.tools.results import OptimizeResult


def _improvement(name: str, problem_type: str, initial: float, final: float) -> float:
    gain = (initial - final) if problem_type == "beams2d" else (final - initial)
    return float(gain / abs(initial) * 100.0) if initial else 0.0


def _run_job(
    context: ToolContext, args: OptimizeArgs, config: engine.ProblemConfig
) -> tuple[str, dict[str, Any]]:
    job = context.app.jobs.submit(
        optimization_worker.run_optimization,
        args.problem_type,
        config.model_dump(),
        args.seed,
        title=f"optimize {args.problem_type}",
    )
    try:
        return job.id, job.result()
    except JobCancelled:
        raise ToolFailure(
            f"The {args.problem_type} optimisation was cancelled; no design was saved.",
            hint="Call optimize_design again to rerun it.",
        ) from None
    except JobFailed as failure:
        raise ToolFailure(f"The {args.problem_type} optimisation failed: {failure}") from None


def optimize_design(args: OptimizeArgs, context: ToolContext) -> OptimizeResult:
    config = args.config()
    started = time.perf_counter()
    job_id, outcome = _run_job(context, args, config)
    elapsed = time.perf_counter() - started
    design = np.asarray(outcome["design"])
    name = f"{args.problem_type}_{engine.config_sha256(args.problem_type, config)[:8]}"
    save_path = (
        designs.output_path(context, None, f"{name}_seed{args.seed}_optimized.npy")
        if args.save_result
        else None
    )
    common: dict[str, Any] = {
        "problem_type": args.problem_type,
        "config": config,
        "seed": args.seed,
    }
    designs.store_design(
        context, np.asarray(outcome["initial_design"]), role="initial", save_path=None, **common
    )
    stored = designs.store_design(context, design, role="optimized", save_path=save_path, **common)
    history = outcome["objective_history"]
    history_artifact = _store_history(context, name, history)
    candidate, checks = candidates.propose_design(
        context.app.ledger,
        problem_type=args.problem_type,
        config=config,
        seed=args.seed,
        design=design,
        artifact_sha256=stored.sha256,
        tool_call_id=context.call_id,
    )
    per_objective: dict[str, float] = {}
    for key, initial in outcome["initial_objectives"].items():
        final = outcome["final_objectives"][key]
        per_objective[f"initial_{key}"] = initial
        per_objective[f"final_{key}"] = final
        per_objective[f"{key}_improvement"] = _improvement(key, args.problem_type, initial, final)
    summary = ", ".join(f"{k}={v:.4g}" for k, v in per_objective.items())
    return OptimizeResult(
        **per_objective,
        message=f"Optimised {args.problem_type} in {len(history)} iterations: {summary}.",
        problem_type=args.problem_type,
        design_shape=list(design.shape),
        optimization_info={"steps": len(history), "obj_values": history},
        save_path=str(save_path) if save_path else None,
        design_artifact_path=str(stored.path),
        history_artifact_path=str(history_artifact.path),
        design_sha256=engine.design_sha256(design),
        candidate_id=candidate.id,
        subject=candidate.subject,
        invariants={check.invariant: check.adjudication.value for check in checks},
        job_id=job_id,
        elapsed_s=round(elapsed, 3),
        config_warning=not args.problem_config,
        optimized_design=design.tolist() if args.include_design else None,
    )


def _store_history(context: ToolContext, name: str, history: list[float]) -> Artifact:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"{name}_history.json"
        path.write_text(json.dumps({"obj_values": history}))
        return context.add_artifact(path, kind="topopt.history")
