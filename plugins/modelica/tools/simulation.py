"""The tools that run a backend: `check_model` and `simulate`, and where simulations are kept.

Simulation runs in a worker job (`context.app.jobs`), because it is CPU work that must not
block the GUI and a worker can be stopped: outside a task run at `interactive_simulation_limit_s`
(settings), so a model that chatters with a huge stop_time ends with a message. With
`[plugins.modelica] inline_max_intervals = N` runs of at most N intervals are done in the calling
thread instead, unbounded (tiny models, tests and benchmarks: a worker costs a process start,
~1 s, for a model that solves in milliseconds). Every simulation is kept as a
store artifact; inside a task run it is also recorded with the candidate that produced it.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from workbench.core.jobs import JobFailed, Reporter
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.backend_base import (
    CheckResult,
    Diagnostic,
    ModelSource,
    SimulationResult,
    SimulationSettings,
)
from workbench_plugins.modelica.backends import backend_named
from workbench_plugins.modelica.events import SimulationRecorded
from workbench_plugins.modelica.tools.common import optional_run, settings_of
from workbench_plugins.modelica.tools.model_source import (
    ModelArgs,
    backend_for,
    model_paths,
    model_source,
)

JOB_TIMEOUT_S = 1800.0  # a simulation inside a task run (the run's wall time bounds it too)
LIMIT_SETTING = "interactive_simulation_limit_s in [plugins.modelica]"
_TIMED_OUT = "timeout after"  # rumoca's words when its own wall limit (max_wall_s) stopped it
_STANDALONE: dict[str, harness.SimulationRecord] = {}  # simulations outside runs, by id


class CheckOutput(CheckResult):
    candidate_id: str | None = None


def check_model(args: ModelArgs, context: ToolContext) -> CheckOutput:
    run = optional_run(args, context)
    if run is not None:
        run.guard("check_model")
    result = backend_for(args, context).check(model_source(args, context, run))
    candidate = run.candidate.id if run is not None and run.candidate else None
    return CheckOutput(**result.model_dump(), candidate_id=candidate)


class SimulateArgs(ModelArgs):
    stop_time: float = Field(1.0, gt=0)
    start_time: float = 0.0
    intervals: int = Field(500, ge=1, le=1_000_000)
    tolerance: float = Field(1e-6, gt=0, lt=1)
    parameters: dict[str, float] = Field(
        default_factory=dict,
        description="overrides (tuning: the candidate)",
    )
    scenario: str = Field("default", min_length=1)


class SimulateOutput(BaseModel):
    sim_id: str
    ok: bool
    model: str
    backend: str
    candidate_id: str | None
    scenario: str
    points: int
    final: dict[str, float | None] = Field(description="final value of every variable")
    diagnostics: list[Diagnostic]
    elapsed_s: float
    artifact_id: int | None


def simulate_job(
    reporter: Reporter,
    backend: str,
    omc_home: str,
    source: dict[str, Any],
    settings: dict[str, Any],
) -> dict[str, Any]:
    """Worker-process body: one simulation, reported coarsely (backends give no progress)."""
    reporter.progress(0.0, f"compiling {source['model']}")
    result = backend_named(backend, omc_home=omc_home).simulate(
        ModelSource.model_validate(source), SimulationSettings.model_validate(settings)
    )
    reporter.progress(1.0, f"simulated {source['model']}")
    return result.model_dump(mode="json")


def _execute(
    args: SimulateArgs,
    context: ToolContext,
    source: ModelSource,
    settings: SimulationSettings,
    in_run: bool,
) -> SimulationResult:
    """Simulate in this thread when the run is small enough (settings), else in a worker job,
    stopped at the wall-clock limit: a task run's own, else the interactive one (settings)."""
    backend = backend_for(args, context)
    config = settings_of(context)
    limit = JOB_TIMEOUT_S if in_run else config.interactive_simulation_limit_s
    if settings.intervals <= config.inline_max_intervals:
        result = backend.simulate(source, settings.model_copy(update={"max_wall_s": limit}))
        if not result.ok and any(_TIMED_OUT in d.message for d in result.diagnostics):
            raise _over_limit(source.model, limit, in_run)
        return result
    job = context.app.jobs.submit(
        simulate_job,
        backend.name,
        config.omc_home,
        source.model_dump(mode="json"),
        settings.model_dump(mode="json"),
        title=f"simulate {source.model}",
    )
    try:
        return SimulationResult.model_validate(job.result(timeout=limit))
    except JobFailed as error:
        raise ToolFailure(f"The simulation worker failed: {error}") from error
    except TimeoutError as error:
        job.cancel()  # the worker is terminated: nothing goes on computing
        raise _over_limit(source.model, limit, in_run) from error


def _over_limit(model: str, limit: float, in_run: bool) -> ToolFailure:
    if in_run:
        return ToolFailure(
            f"The simulation of {model} took longer than {limit:g} s and was stopped.",
            "Shorten stop_time, reduce intervals or simplify the model.",
        )
    return ToolFailure(
        f"The simulation of {model} was stopped at the wall-clock limit of {limit:g} s for "
        f"simulations outside a task run ({LIMIT_SETTING}); no result was kept.",
        f"Shorten stop_time or simplify the model (a chattering event or a stiff system), or "
        f"raise {LIMIT_SETTING} in the settings.",
    )


def simulate(args: SimulateArgs, context: ToolContext) -> SimulateOutput:
    run = optional_run(args, context)
    parameters = dict(args.parameters)
    candidate = None
    sim_id = ""
    if run is not None:
        sim_id = run.reserve_simulation()
        if run.profile.name == "tuning":
            if parameters:
                run.set_parameters(parameters)
            parameters = dict(run.parameters)
        candidate = run.current().id
    settings = SimulationSettings(
        start_time=args.start_time,
        stop_time=args.stop_time,
        intervals=args.intervals,
        tolerance=args.tolerance,
        parameters=parameters,
    )
    if settings.stop_time <= settings.start_time:
        raise ToolFailure("stop_time must be after start_time.")
    result = _execute(args, context, model_source(args, context, run), settings, run is not None)
    artifact_id = _save(result, context, run, sim_id, candidate, args.scenario)
    sim_id = sim_id or f"a{artifact_id}"
    record = harness.SimulationRecord(
        id=sim_id,
        candidate_id=candidate,
        result=result,
        tool_call_id=context.call_id,
        artifact_id=artifact_id,
        scenario=args.scenario,
    )
    if run is not None:
        run.record_simulation(record)
    else:
        _STANDALONE[sim_id] = record
    context.app.bus.publish(
        SimulationRecorded(
            source="modelica",
            sim_id=sim_id,
            model=result.model,
            ok=result.ok,
            artifact_id=artifact_id,
            candidate_id=candidate,
            run_id=run.id if run else None,
            scenario=args.scenario,
        )
    )
    return SimulateOutput(
        sim_id=sim_id,
        ok=result.ok,
        model=result.model,
        backend=result.backend,
        candidate_id=candidate,
        scenario=args.scenario,
        points=len(result.time),
        final=result.final_values(),
        diagnostics=result.diagnostics,
        elapsed_s=result.elapsed_s,
        artifact_id=artifact_id,
    )


def _save(
    result: SimulationResult,
    context: ToolContext,
    run: harness.Run | None,
    sim_id: str,
    candidate: str | None,
    scenario: str,
) -> int:
    """Keep the trajectories as a store artifact (views and later processes read them)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{result.model}.trajectories.json"
        path.write_text(result.model_dump_json(), encoding="utf-8")
        artifact = context.add_artifact(
            path,
            kind="modelica.trajectories",
            meta={
                "model": result.model,
                "ok": result.ok,
                "backend": result.backend,
                "run": run.id if run else None,
                "sim_id": sim_id,
                "candidate_id": candidate,
                "scenario": scenario,
            },
        )
    return artifact.id


def load_simulation(
    context: ToolContext, run: harness.Run | None, sim_id: str
) -> harness.SimulationRecord:
    """A simulation by the sim_id `simulate` returned: of the run, of this process, or stored."""
    if run is not None:
        return run.simulation(sim_id)
    if sim_id in _STANDALONE:
        return _STANDALONE[sim_id]
    if re.fullmatch(r"a\d+", sim_id):  # a simulation of an earlier process: from the store
        artifact = context.app.store.artifact(int(sim_id[1:]))
        result = SimulationResult.model_validate_json(artifact.path.read_text(encoding="utf-8"))
        return harness.SimulationRecord(id=sim_id, candidate_id=None, result=result)
    raise ToolFailure(f"No simulation {sim_id!r}.", "Use the sim_id that simulate returned.")


def simulation_tools() -> list[Tool]:
    return [
        Tool(
            "check_model",
            "Check a model: diagnostics, equation balance, states.",
            ModelArgs,
            CheckOutput,
            check_model,
            SideEffect.COMPUTE,
            files=model_paths,
        ),
        Tool(
            "simulate",
            "Simulate a model; returns final values and a sim_id.",
            SimulateArgs,
            SimulateOutput,
            simulate,
            SideEffect.COMPUTE,
            files=model_paths,
        ),
    ]
