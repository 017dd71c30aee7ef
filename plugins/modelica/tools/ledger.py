"""The task-ledger tools: measuring simulations, invariants, evidence, status and submission.

`evaluate_observable` measures a simulation and may suggest an adjudication; the others work on
the ledger of a task run, binding evidence to the candidate whose simulation produced it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, ParamSpec, TypeVar, get_args

from pydantic import BaseModel, Field, WithJsonSchema

from workbench.core.ledger import InvariantKind, LedgerError
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.modelica import observables
from workbench_plugins.modelica.run_status import StatusOutput, status_of
from workbench_plugins.modelica.tools.common import (
    RunArg,
    optional_run,
    required_run,
    watched_run,
)
from workbench_plugins.modelica.tools.simulation import load_simulation

P = ParamSpec("P")
R = TypeVar("R")


def _ledger(action: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`action(...)`, with a ledger refusal turned into a failure the agent can act on."""
    try:
        return action(*args, **kwargs)
    except LedgerError as error:
        raise ToolFailure(str(error)) from error


# -- observables -------------------------------------------------------------------------------
def observable_variants() -> tuple[type[BaseModel], ...]:
    """The models of `observables.Observable` (an Annotated union)."""
    union = get_args(observables.Observable)[0]
    return tuple(get_args(union))


def _number(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "number", "description": description, **extra}


# One flat object instead of the seven variants (which repeat variable/start/end), about a fifth
# of the tokens; validation still goes through the discriminated union `observables.Observable`.
OBSERVABLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"enum": [v.model_fields["type"].default for v in observable_variants()]},
        "variable": {"type": "string"},
        "time": _number("value_at_time"),
        "start": {"type": "number"},
        "end": {"type": "number"},
        "kind": {"enum": ["max", "min", "max_abs"], "default": "max", "description": "extremum"},
        "band": _number("settling_time: relative band", default=0.02),
        "final": _number("settling_time, overshoot (default: last)"),
        "fraction": _number("steady_state: trailing share averaged", default=0.1),
        "direction": {"enum": ["increasing", "decreasing"], "description": "monotonic"},
        "tolerance": _number("monotonic: allowed step back", default=0),
    },
    "required": ["type", "variable"],
    "description": "start/end: window",
}


class ObservableArgs(RunArg):
    sim: str = Field(..., description="sim_id from simulate")
    observable: Annotated[observables.Observable, WithJsonSchema(OBSERVABLE_SCHEMA)]
    condition: observables.Condition | None = Field(
        None,
        description="target+-tolerance, min/max or equals",
    )


class ObservableOutput(observables.Measurement):
    sim: str
    candidate_id: str | None
    suggested_adjudication: str | None = None
    reason: str = ""


def evaluate_observable(args: ObservableArgs, context: ToolContext) -> ObservableOutput:
    run = optional_run(args, context)
    if run is not None:
        run.guard("evaluate_observable")
    record = load_simulation(context, run, args.sim)
    if not record.result.ok or not record.result.time:
        raise ToolFailure(
            f"Simulation {args.sim} failed; it has no trajectories to measure.",
            "Fix the model (see its diagnostics) and simulate again.",
        )
    measured = observables.evaluate(args.observable, record.result.time, record.result.series)
    verdict: str | None = None
    reason = ""
    if args.condition is not None:
        verdict, reason = observables.judge(measured, args.condition)
    return ObservableOutput(
        **measured.model_dump(),
        sim=args.sim,
        candidate_id=record.candidate_id,
        suggested_adjudication=verdict,
        reason=reason,
    )


# -- invariants and evidence -------------------------------------------------------------------
class InvariantArgs(RunArg):
    name: str = Field(..., min_length=1, description="e.g. 'settles_2s'")
    proposition: str = Field(..., min_length=1)
    kind: InvariantKind = Field(InvariantKind.BEHAVIOURAL)
    observables: list[str] = Field(default_factory=list, description="e.g. ['T(10)', 'max(x)']")
    scenarios: list[str] = Field(default_factory=lambda: ["default"])
    condition: dict[str, Any] = Field(
        default_factory=dict,
        description="e.g. {'target': 1, 'tolerance': 0.01}",
    )
    required: bool = True


class AnyResult(BaseModel):
    model_config = {"extra": "allow"}


def add_invariant(args: InvariantArgs, context: ToolContext) -> AnyResult:
    run = required_run(args, context)
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
    return AnyResult.model_validate(defined.model_dump(mode="json"))


class EvidenceArgs(RunArg):
    invariant: str
    adjudication: Literal["supported", "violated", "inconclusive"]
    sim: str | None = None  # the sim_id it comes from
    scenario: str | None = None  # default: the simulation's
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
    run = required_run(args, context)
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


# -- status and submission ---------------------------------------------------------------------
def ledger_status(args: RunArg, context: ToolContext) -> StatusOutput:
    return status_of(watched_run(args))


class SubmitArgs(RunArg):
    candidate: str | None = Field(None, description="default: current")
    note: str = ""
    override: bool = Field(False, description="submit although not ready")


class SubmitOutput(BaseModel):
    submission_id: int
    candidate_id: str
    override: bool
    content: dict[str, Any]
    readiness: str


def submit(args: SubmitArgs, context: ToolContext) -> SubmitOutput:
    run = required_run(args, context)
    submitted = run.submit(args.candidate, note=args.note, override=args.override)
    return SubmitOutput(
        submission_id=submitted.id,
        candidate_id=submitted.candidate_id,
        override=submitted.override,
        content=submitted.content,
        readiness=submitted.readiness.explain(),
    )


def ledger_tools() -> list[Tool]:
    return [
        Tool(
            "evaluate_observable",
            "Measure a simulation; with a condition, suggest an adjudication.",
            ObservableArgs,
            ObservableOutput,
            evaluate_observable,
            SideEffect.READ,
        ),
        Tool(
            "add_invariant",
            "Add an invariant to the task ledger.",
            InvariantArgs,
            AnyResult,
            add_invariant,
            SideEffect.WRITE,
        ),
        Tool(
            "record_evidence",
            "Record evidence for an invariant, bound to the simulated candidate.",
            EvidenceArgs,
            EvidenceOutput,
            record_evidence,
            SideEffect.WRITE,
        ),
        Tool(
            "ledger_status",
            "The ledger: candidate, invariant statuses, readiness, limits.",
            RunArg,
            StatusOutput,
            ledger_status,
            SideEffect.READ,
        ),
        Tool(
            "submit",
            "Submit a candidate (final). Refused unless ready, or override.",
            SubmitArgs,
            SubmitOutput,
            submit,
            SideEffect.WRITE,
        ),
    ]
