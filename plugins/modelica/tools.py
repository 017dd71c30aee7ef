"""The Modelica tools: files, check, simulate, observables and the task ledger.

Outside a task run, check_model and simulate take any .mo file the user names (the CLI case).
Inside a run (see `harness`), files are confined to the task workspace, candidates follow every
change, and evidence binds to the candidate whose simulation produced it.

Simulation runs in a worker job (`context.app.jobs`), because it is CPU work that must not
block the GUI; with `[plugins.modelica] inline_max_intervals = N` runs of at most N intervals
are done in the calling thread instead (tiny models, tests and benchmarks: a worker costs a
process start, ~1 s, for a model that solves in milliseconds).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from workbench.core.jobs import JobFailed, Reporter
from workbench.core.ledger import InvariantKind, LedgerError
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.modelica import harness, observables
from workbench_plugins.modelica.backend_base import (
    BackendUnavailable,
    CheckResult,
    Diagnostic,
    ModelSource,
    SimulationResult,
    SimulationSettings,
    backend_named,
)
from workbench_plugins.modelica.events import SimulationRecorded
from workbench_plugins.modelica.settings import ModelicaSettings

JOB_TIMEOUT_S = 1800.0
_STANDALONE: dict[str, harness.SimulationRecord] = {}  # simulations outside runs, by id


def settings_of(context: ToolContext) -> ModelicaSettings:
    return context.app.settings.plugin("modelica", ModelicaSettings)


class RunArg(BaseModel):
    run: str | None = Field(None, description="task run id; empty: the single running task, if any")


def _run(args: RunArg, *, required: bool = False) -> harness.Run | None:
    run = harness.find_run(args.run)
    if run is None and required:
        raise ToolFailure(
            "No Modelica task run is active, and this tool works on a task's ledger.",
            "Start a task run (harness.start_run) or name it with 'run'.",
        )
    return run


def _ledger(action: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return action(*args, **kwargs)
    except LedgerError as error:
        raise ToolFailure(str(error)) from error


# -- files -------------------------------------------------------------------------------------
class ReadArgs(RunArg):
    path: str = Field(..., description="file path relative to the task workspace")


class ReadResult(BaseModel):
    path: str
    text: str
    workspace_files: list[str]


# a model file is kilobytes; the cap keeps a stray log or data file out of the agent's context
MAX_READ_BYTES = 512 * 1024


def read_file(args: ReadArgs, context: ToolContext) -> ReadResult:
    run = _run(args, required=True)
    assert run is not None
    run.guard("read_file")
    path = run.workspace.resolve(args.path)
    if not path.is_file():
        run.workspace.read(args.path)  # raises the "no such file" failure, listing the workspace
    with path.open("rb") as handle:
        data = handle.read(MAX_READ_BYTES + 1)  # never more than the cap, even if it grows
    if len(data) > MAX_READ_BYTES:
        raise ToolFailure(
            f"Refused to read {args.path!r}: it is {path.stat().st_size:,} bytes, over the "
            f"read_file limit of {MAX_READ_BYTES:,} bytes.",
            "Read the model files (.mo), not logs or results; split a model that is this large.",
        )
    # as Workspace.read (text mode): universal newlines
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return ReadResult(path=args.path, text=text, workspace_files=run.workspace.files())


class WriteArgs(RunArg):
    path: str = Field(..., description="file path relative to the task workspace, e.g. 'M.mo'")
    text: str = Field(..., description="the complete new file content")


class WriteResult(BaseModel):
    path: str
    bytes: int
    candidate_id: str | None
    note: str = ""


def write_file(args: WriteArgs, context: ToolContext) -> WriteResult:
    run = _run(args, required=True)
    assert run is not None
    run.guard("write_file")
    previous = run.candidate.id if run.candidate else None
    path = run.workspace.write(args.path, args.text)
    candidate = run.files_changed("write_file")
    changed = candidate is not None and candidate.id != previous
    return WriteResult(
        path=run.workspace.relative(path),
        bytes=path.stat().st_size,
        candidate_id=candidate.id if candidate else None,
        note=(
            "New candidate: every invariant is open again for it; earlier evidence stays with "
            "the earlier candidate."
            if changed
            else "Content unchanged: same candidate."
        ),
    )


# -- check and simulate ------------------------------------------------------------------------
class ModelArgs(RunArg):
    model: str = Field(..., min_length=1, description="model name, e.g. 'RCCharge' or 'Lib.M'")
    file: str | None = Field(
        None,
        description=(
            "the .mo file declaring the model, or a package folder; in a task run relative to "
            "its workspace (default: all workspace .mo files), otherwise any path"
        ),
    )
    backend: Literal["rumoca", "omc"] | None = Field(None, description="default: settings")
    libraries: list[str] = Field(
        default_factory=list, description="extra library folders (e.g. a Modelica Standard Library)"
    )


def _source(args: ModelArgs, context: ToolContext, run: harness.Run | None) -> ModelSource:
    libraries = [
        *(Path(p) for p in settings_of(context).library_paths),  # the user's own settings
        *_named_libraries(args, context),
    ]
    missing = [str(p) for p in libraries if not p.is_dir()]
    if missing:
        raise ToolFailure(
            f"Library folder(s) not found: {', '.join(missing)}.",
            "Fix library_paths in the Modelica settings or the 'libraries' argument.",
        )
    if run is not None:
        names = run.workspace.files(".mo")
        if args.file:
            first = run.workspace.resolve(args.file)
            if not first.is_file():
                raise ToolFailure(f"No file {args.file!r} in the workspace.", f"It holds: {names}.")
        else:
            if not names:
                raise ToolFailure("The workspace holds no .mo file yet.", "Write one first.")
            first = run.workspace.resolve(_declaring(run, names, args.model))
        rest = [run.workspace.resolve(n) for n in names if run.workspace.resolve(n) != first]
        return ModelSource(files=[first, *rest], model=args.model, libraries=libraries)
    if not args.file:
        raise ToolFailure("Name the .mo file ('file') that declares the model.")
    path = context.file(args.file, mode="read")
    if path.is_dir() and (path / "package.mo").is_file():
        path = path / "package.mo"  # a package folder is loaded as that package
    if not path.is_file():
        raise ToolFailure(
            f"No Modelica file at {path}.", "Give an existing .mo file or package folder."
        )
    return ModelSource(files=[path.resolve()], model=args.model, libraries=libraries)


def _named_libraries(args: ModelArgs, context: ToolContext) -> list[Path]:
    """Library folders named in the call: confined like every file a tool reads."""
    return [context.file(folder, mode="read") for folder in args.libraries]


def _model_paths(args: ModelArgs, context: ToolContext) -> None:
    """The registry's `files`: outside a task run, the model file and libraries named in the
    call must be inside the workspace or an allowed folder, or confirmed by a person."""
    if _run(args) is None and args.file:
        context.file(args.file, mode="read")
    _named_libraries(args, context)


def _declaring(run: harness.Run, names: list[str], model: str) -> str:
    short = re.escape(model.rsplit(".", 1)[-1])
    pattern = re.compile(rf"^\s*(?:\w+\s+)*(?:model|block|class)\s+{short}\b", re.M)
    for name in names:
        if pattern.search(run.workspace.read(name)):
            return name
    return names[0]


def _backend(args: ModelArgs, context: ToolContext) -> Any:
    settings = settings_of(context)
    try:
        backend = backend_named(args.backend or settings.backend, omc_home=settings.omc_home)
    except BackendUnavailable as error:
        raise ToolFailure(str(error)) from error
    usable, why = backend.available()
    if not usable:
        raise ToolFailure(f"The {backend.name} backend cannot run here: {why}")
    return backend


class CheckOutput(CheckResult):
    candidate_id: str | None = None


def check_model(args: ModelArgs, context: ToolContext) -> CheckOutput:
    run = _run(args)
    if run is not None:
        run.guard("check_model")
    result = _backend(args, context).check(_source(args, context, run))
    candidate = run.candidate.id if run is not None and run.candidate else None
    return CheckOutput(**result.model_dump(), candidate_id=candidate)


class SimulateArgs(ModelArgs):
    stop_time: float = Field(1.0, gt=0, description="simulation end time [s]")
    start_time: float = Field(0.0, description="simulation start time [s]")
    intervals: int = Field(500, ge=1, le=1_000_000, description="output intervals")
    tolerance: float = Field(1e-6, gt=0, lt=1, description="relative solver tolerance")
    parameters: dict[str, float] = Field(
        default_factory=dict,
        description=(
            "parameter overrides; in a tuning task these ARE the candidate (tunable only); "
            "otherwise they set up a scenario"
        ),
    )
    scenario: str = Field("default", min_length=1, description="scenario name for evidence")


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
    reporter: Reporter, backend: str, omc_home: str, source: dict, settings: dict
) -> dict:
    """Worker-process body: one simulation, reported coarsely (backends give no progress)."""
    reporter.progress(0.0, f"compiling {source['model']}")
    result = backend_named(backend, omc_home=omc_home).simulate(
        ModelSource.model_validate(source), SimulationSettings.model_validate(settings)
    )
    reporter.progress(1.0, f"simulated {source['model']}")
    return result.model_dump(mode="json")


def _execute(
    args: SimulateArgs, context: ToolContext, source: ModelSource, settings: SimulationSettings
) -> SimulationResult:
    backend = _backend(args, context)
    config = settings_of(context)
    if settings.intervals <= config.inline_max_intervals:
        return backend.simulate(source, settings)
    job = context.app.jobs.submit(
        simulate_job,
        backend.name,
        config.omc_home,
        source.model_dump(mode="json"),
        settings.model_dump(mode="json"),
        title=f"simulate {source.model}",
    )
    try:
        return SimulationResult.model_validate(job.result(timeout=JOB_TIMEOUT_S))
    except JobFailed as error:
        raise ToolFailure(f"The simulation worker failed: {error}") from error
    except TimeoutError as error:
        job.cancel()
        raise ToolFailure(
            f"The simulation took longer than {JOB_TIMEOUT_S:g} s and was cancelled.",
            "Shorten stop_time, reduce intervals or simplify the model.",
        ) from error


def simulate(args: SimulateArgs, context: ToolContext) -> SimulateOutput:
    run = _run(args)
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
    result = _execute(args, context, _source(args, context, run), settings)
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


def load_simulation(context: ToolContext, run: harness.Run | None, sim_id: str) -> Any:
    if run is not None:
        return run.simulation(sim_id)
    if sim_id in _STANDALONE:
        return _STANDALONE[sim_id]
    if re.fullmatch(r"a\d+", sim_id):  # a simulation of an earlier process: from the store
        artifact = context.app.store.artifact(int(sim_id[1:]))
        result = SimulationResult.model_validate_json(artifact.path.read_text(encoding="utf-8"))
        return harness.SimulationRecord(id=sim_id, candidate_id=None, result=result)
    raise ToolFailure(f"No simulation {sim_id!r}.", "Use the sim_id that simulate returned.")


# -- observables -------------------------------------------------------------------------------
class ObservableArgs(RunArg):
    sim: str = Field(..., description="sim_id returned by simulate")
    observable: observables.Observable
    condition: observables.Condition | None = Field(
        None, description="optional condition to suggest an adjudication"
    )


class ObservableOutput(observables.Measurement):
    sim: str
    candidate_id: str | None
    suggested_adjudication: str | None = None
    reason: str = ""


def evaluate_observable(args: ObservableArgs, context: ToolContext) -> ObservableOutput:
    run = _run(args)
    if run is not None:
        run.guard("evaluate_observable")
    record = load_simulation(context, run, args.sim)
    if not record.result.ok or not record.result.time:
        raise ToolFailure(
            f"Simulation {args.sim} failed; it has no trajectories to measure.",
            "Fix the model (see its diagnostics) and simulate again.",
        )
    measured = observables.evaluate(args.observable, record.result.time, record.result.series)
    verdict, reason = (None, "")
    if args.condition is not None:
        verdict, reason = observables.judge(measured, args.condition)
    return ObservableOutput(
        **measured.model_dump(),
        sim=args.sim,
        candidate_id=record.candidate_id,
        suggested_adjudication=verdict,
        reason=reason,
    )


# -- ledger ------------------------------------------------------------------------------------
class InvariantArgs(RunArg):
    name: str = Field(..., min_length=1, description="short name, e.g. 'settles_2s'")
    proposition: str = Field(..., min_length=1, description="what must hold, in words")
    kind: InvariantKind = Field(InvariantKind.BEHAVIOURAL)
    observables: list[str] = Field(
        default_factory=list, description="observables inspected, e.g. ['T(10)', 'max(x)']"
    )
    scenarios: list[str] = Field(default_factory=lambda: ["default"])
    condition: dict[str, Any] = Field(
        default_factory=dict,
        description="evidence condition, e.g. {'target': 1, 'tolerance': 0.01}",
    )
    required: bool = True


def add_invariant(args: InvariantArgs, context: ToolContext) -> dict[str, Any]:
    run = _run(args, required=True)
    assert run is not None
    run.guard("add_invariant")
    defined = _ledger(
        context.app.ledger.define_invariant,
        run.subject,
        args.name,
        args.proposition,
        kind=args.kind,
        observables=args.observables,
        scenarios=args.scenarios,
        condition=args.condition,
        required=args.required,
    )
    return defined.model_dump(mode="json")


class EvidenceArgs(RunArg):
    invariant: str = Field(..., description="invariant name")
    adjudication: Literal["supported", "violated", "inconclusive"]
    sim: str | None = Field(
        None, description="sim_id the evidence comes from (binds it to that run's candidate)"
    )
    scenario: str | None = Field(None, description="default: the simulation's scenario")
    observables: list[str] = Field(default_factory=list)
    measurements: dict[str, Any] = Field(default_factory=dict)
    note: str = ""


class EvidenceOutput(BaseModel):
    evidence_id: int
    candidate_id: str
    invariant: str
    scenario: str
    adjudication: str
    status_for_candidate: str
    current_candidate: bool
    note: str = ""


def record_evidence(args: EvidenceArgs, context: ToolContext) -> EvidenceOutput:
    run = _run(args, required=True)
    assert run is not None
    run.guard("record_evidence")
    ledger = context.app.ledger
    invariant = _ledger(ledger.invariant, run.subject, args.invariant)
    scenario = args.scenario
    tool_call = None
    measurements = dict(args.measurements)
    if args.sim:
        record = run.simulation(args.sim)
        candidate = record.candidate_id or run.current().id
        if scenario is None and record.scenario in invariant.scenarios:
            scenario = record.scenario
        measurements = {"simulation": args.sim, "backend": record.result.backend, **measurements}
        tool_call = record.tool_call_id
    else:
        candidate = run.current().id
    recorded = _ledger(
        ledger.record_evidence,
        candidate=candidate,
        invariant=args.invariant,
        adjudication=args.adjudication,
        scenario=scenario,
        observables=args.observables or None,
        measurements=measurements,
        note=args.note,
        tool_call_id=tool_call,
    )
    status = ledger.status(candidate=candidate, invariant=args.invariant)
    current = run.candidate is not None and run.candidate.id == candidate
    return EvidenceOutput(
        evidence_id=recorded.id,
        candidate_id=candidate,
        invariant=args.invariant,
        scenario=recorded.scenario,
        adjudication=recorded.adjudication.value,
        status_for_candidate=status.status.value,
        current_candidate=current,
        note=""
        if current
        else "This simulation was of an earlier candidate: the evidence counts only for it, "
        "not for the current candidate.",
    )


class StatusOutput(BaseModel):
    run: str
    profile: str
    state: str
    reason: str
    current_candidate: str | None
    ready: bool
    readiness: str
    invariants: dict[str, str]
    turns: int
    simulations: int
    limits: dict[str, float]
    text: str


def ledger_status(args: RunArg, context: ToolContext) -> StatusOutput:
    run = _run(args, required=True)
    assert run is not None
    return status_of(run)


def status_of(run: harness.Run) -> StatusOutput:
    ledger = run.ledger
    current = run.candidate
    report = ledger.readiness(current) if current else None
    invariants = {s.invariant_name: s.status.value for s in (report.invariants if report else [])}
    limits = run.task.limits
    lines = [
        f"Run {run.id} ({run.profile.name}, {run.state}{': ' + run.reason if run.reason else ''})",
        f"Current candidate: {current.short_id if current else 'none'}",
        report.explain() if report else "No candidate yet.",
        *(f"- {s.describe()}" for s in (report.invariants if report else [])),
        f"Turns {run.turns}/{limits.turns}, simulations {len(run.simulations)}/"
        f"{limits.simulations}, wall time {run.elapsed_s:.0f}/{limits.wall_time_s:g} s",
    ]
    return StatusOutput(
        run=run.id,
        profile=run.profile.name,
        state=run.state,
        reason=run.reason,
        current_candidate=current.id if current else None,
        ready=bool(report and report.ready),
        readiness=report.explain() if report else "no candidate",
        invariants=invariants,
        turns=run.turns,
        simulations=len(run.simulations),
        limits=limits.model_dump(),
        text="\n".join(lines),
    )


class SubmitArgs(RunArg):
    candidate: str | None = Field(None, description="candidate id or prefix; default: current")
    note: str = Field("", description="final report: why this candidate meets the brief")
    override: bool = Field(False, description="submit although not ready (recorded as such)")


class SubmitOutput(BaseModel):
    submission_id: int
    candidate_id: str
    override: bool
    content: dict[str, Any]
    readiness: str


def submit(args: SubmitArgs, context: ToolContext) -> SubmitOutput:
    run = _run(args, required=True)
    assert run is not None
    submitted = run.submit(args.candidate, note=args.note, override=args.override)
    return SubmitOutput(
        submission_id=submitted.id,
        candidate_id=submitted.candidate_id,
        override=submitted.override,
        content=submitted.content,
        readiness=submitted.readiness.explain(),
    )


class AnyResult(BaseModel):
    model_config = {"extra": "allow"}


def tools() -> list[Tool]:
    return [
        Tool(
            "read_file",
            "Read a file of the Modelica task workspace.",
            ReadArgs,
            ReadResult,
            read_file,
            SideEffect.READ,
        ),
        Tool(
            "write_file",
            "Write a whole file in the task workspace (confined to it); a changed "
            "package is a new candidate.",
            WriteArgs,
            WriteResult,
            write_file,
            SideEffect.WRITE,
        ),
        Tool(
            "check_model",
            "Check a Modelica model: diagnostics with file and line, equation "
            "balance, states and parameters.",
            ModelArgs,
            CheckOutput,
            check_model,
            SideEffect.COMPUTE,
            files=_model_paths,
        ),
        Tool(
            "simulate",
            "Simulate a Modelica model; returns the final value of every variable "
            "and a sim_id for evaluate_observable and record_evidence.",
            SimulateArgs,
            SimulateOutput,
            simulate,
            SideEffect.COMPUTE,
            files=_model_paths,
        ),
        Tool(
            "evaluate_observable",
            "Measure a simulation: value_at_time, extremum, settling_time, "
            "overshoot, steady_state, integral, monotonic; optionally judge it against a "
            "condition.",
            ObservableArgs,
            ObservableOutput,
            evaluate_observable,
            SideEffect.READ,
        ),
        Tool(
            "add_invariant",
            "Add an engineering invariant <proposition, observables, scenarios, "
            "condition> to the task ledger.",
            InvariantArgs,
            AnyResult,
            add_invariant,
            SideEffect.WRITE,
        ),
        Tool(
            "record_evidence",
            "Record adjudicated evidence for an invariant, bound to the "
            "candidate whose simulation produced it.",
            EvidenceArgs,
            EvidenceOutput,
            record_evidence,
            SideEffect.WRITE,
        ),
        Tool(
            "ledger_status",
            "The task ledger: current candidate, invariant statuses, readiness and limits.",
            RunArg,
            StatusOutput,
            ledger_status,
            SideEffect.READ,
        ),
        Tool(
            "submit",
            "Submit a candidate explicitly; frozen. Refused unless ready (or override).",
            SubmitArgs,
            SubmitOutput,
            submit,
            SideEffect.WRITE,
        ),
    ]
