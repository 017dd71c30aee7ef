"""The direct policies of the `modelica` suite: tool calls played through the registry in a
harness run of the cell's own workspace, one turn per call, as an agent's would be.

- `reference`: writes the contract's known-valid model (tuning: sets its parameters through
  `simulate`), simulates it at the task's verification settings; in the harness it states the
  contract's behaviour checks on the default scenario as invariants, measures each with
  `evaluate_observable`, records the adjudication the tool suggests and submits explicitly
  (override only if a check is not supported, and then said so); in the plain loop the run ends
  with the implicit submission of the last model, as the plain loop's does.
- `offtarget:variant`: the same with an executable but behaviourally wrong answer, submitted
  with override: the contract's first off-target variant, or for a repair task without one the
  known-valid repair with the nominal values it must keep changed (`drifted_repair`), so the
  behaviour gate of a repair is tested too, not only the faulty input the check catches.
- `offtarget:never-submits`: does the reference's work and never submits (plain: the run ends
  without its implicit submission), so the right model sits in the workspace unsubmitted.
- `offtarget:submits-initial`: submits what the workspace started with, doing nothing else
  (tuning: the frozen model's own values of the tunable parameters, set through `simulate`).

The harness's own public checks apply: a submission failing them is refused, and the run ends
as a failure to submit, which is that policy's result. The two policies that cheat
(`offtarget:fails-every-call`, `offtarget:claims-without-work`) are in `cheats`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from workbench.bench.tool_calls import HarnessFailure, ToolCall
from workbench.core.context import AppContext
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.task_packages.contract import (
    DEFAULT_SCENARIO,
    BoundsMetric,
    ModelAnswer,
    ParameterAnswer,
)
from workbench_plugins.modelica.task_packages.packages import TaskPackage

DIRECT = (
    "reference",
    "offtarget:variant",
    "offtarget:never-submits",
    "offtarget:submits-initial",
)
Verifier = Callable[[harness.Task, dict[str, Any]], list[str]]
DRIFT = 2.0  # drifted_repair: a nominal value of the interface's parameters times this


@dataclass
class Played:
    """What a run did, as the suite scores it (a direct policy's or an agent's)."""

    status: str  # "submitted" | "failure_to_submit" | "error"
    reason: str = ""
    run_id: str = ""
    candidate_id: str | None = None
    override: bool | None = None  # None: not known (an agent's run)
    turns: int = 0
    simulations: int = 0
    model_calls: int = 0
    wall_s: float = 0.0
    tokens: dict[str, int] = field(default_factory=dict)
    calls: list[ToolCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answer: str = ""  # the run's final message: kept to read, never scored

    @classmethod
    def of_run(
        cls, outcome: harness.Outcome, calls: list[ToolCall], notes: list[str], answer: str = ""
    ) -> Played:
        """What a direct policy's or a cheat's harness run did, from how it finished."""
        return cls(
            status=outcome.status,
            reason=outcome.reason,
            run_id=outcome.run_id,
            candidate_id=outcome.candidate_id,
            override=outcome.override,
            turns=outcome.turns,
            simulations=outcome.simulations,
            wall_s=outcome.wall_time_s,
            tokens=dict(outcome.tokens),
            calls=calls,
            notes=notes,
            answer=answer,
        )


@dataclass(frozen=True)
class Check:
    """One behaviour check of the contract as an invariant the harness can adjudicate."""

    name: str
    proposition: str
    observable: dict[str, Any]
    condition: dict[str, Any]


class Plays(Protocol):
    """What `work_on` and `submit_or_end` play its tool calls through."""

    run: harness.Run

    def __call__(
        self, tool: str, /, *, must_succeed: bool = True, **args: Any
    ) -> dict[str, Any]: ...


class Player:
    """Plays tool calls in one run through the registry; each call costs one turn."""

    def __init__(self, app: AppContext, run: harness.Run, caller: str) -> None:
        self.app, self.run, self.caller = app, run, caller
        self.calls: list[ToolCall] = []

    def __call__(self, tool: str, /, *, must_succeed: bool = True, **args: Any) -> dict[str, Any]:
        if not self.run.turn_allowed():
            raise HarnessFailure(f"{self.caller}: the run ended before {tool}: {self.run.reason}")
        self.run.begin_turn()
        outcome = self.app.registry.call(tool, {"run": self.run.id, **args}, caller=self.caller)
        self.calls.append(ToolCall(tool, args, outcome.ok, outcome.result))
        if not outcome.ok:
            detail = outcome.error.explain() if outcome.error else "failed"
            if must_succeed:
                raise HarnessFailure(f"{self.caller}: {tool} failed: {detail}")
            return {"error": detail}
        return outcome.result or {}


def answer_of(policy: str, package: TaskPackage) -> ModelAnswer | ParameterAnswer | None:
    """The answer a policy puts in: None keeps what the workspace started with (a tuning
    task's start: the frozen model's own values of its tunable parameters)."""
    contract = package.contract
    if policy in ("reference", "offtarget:never-submits"):
        return contract.known_valid
    if policy == "offtarget:variant":
        if contract.off_target:
            return contract.off_target[0].submission
        return drifted_repair(package)
    if package.task.task_type == "model_tuning":
        initial = initial_parameters(
            package.task.initial_model or "", package.task.tunable_parameters or []
        )
        return ParameterAnswer(parameter_set=initial) if initial else None
    return None


def drifted_repair(package: TaskPackage) -> ModelAnswer:
    """A repair that checks and simulates but does not keep the model's nominal values: the
    known-valid repair with the first interface parameter that has a literal value times
    DRIFT (a zero becomes 1). One value only: scaling them all can leave the behaviour as it
    was (mass, stiffness, damping and force doubled keep a mass-spring-damper's response).
    For a repair task whose contract names no off-target variant."""
    answer = package.contract.known_valid
    if isinstance(answer, ModelAnswer):
        for name in package.contract.interface.parameters:
            drift = lambda m: m.group(1) + _drifted(m.group(2))  # noqa: E731
            text, changed = re.subn(_literal(name), drift, answer.final_model, count=1)
            if changed:
                return ModelAnswer(final_model=text)
    raise HarnessFailure(f"{package.task_id}: no off-target variant, and no value to drift")


def _literal(name: str) -> str:
    """`parameter Real NAME = VALUE`: group 1 up to the value, group 2 the value."""
    return rf"(\bparameter\s+Real\s+{re.escape(name)}\s*(?:\([^)]*\))?\s*=\s*)([-+0-9.eE]+)"


def _drifted(value: str) -> str:
    number = float(value)
    return repr(number * DRIFT if number else 1.0)


def initial_parameters(model: str, names: list[str]) -> dict[str, float]:
    """The values `parameter Real NAME = VALUE` gives the named parameters in `model` (those
    set by an expression are left out)."""
    found = {}
    for name in names:
        match = re.search(_literal(name) + r"\s*[\";]", model)
        if match:
            found[name] = float(match.group(2))
    return found


def play_direct(
    policy: str,
    package: TaskPackage,
    task: harness.Task,
    mode: str,
    app: AppContext,
    folder: Path,
    verify: Verifier | None,
) -> Played:
    """Play `policy` on `task` in a run made as `driver.run_task` makes an agent's: rooted at
    `folder` (workspace `folder/workspace`), its submission.json in `folder`, `verify` the
    public gates submit checks."""
    if policy not in DIRECT:
        raise ValueError(f"No direct policy {policy!r}; the direct ones are {', '.join(DIRECT)}.")
    caller = f"bench:{policy}"
    run = harness.start_run(task, folder, app.ledger, output=folder, verify=verify, driver=caller)
    player = Player(app, run, caller)
    notes: list[str] = []
    try:
        answer = answer_of(policy, package)
        if policy != "offtarget:submits-initial" or answer is not None:
            notes += work_on(player, package, answer, mode, policy)
        if policy != "offtarget:never-submits":
            notes += submit_or_end(player, mode, policy)
        outcome = run.finish()
    finally:
        harness.forget_run(run.id)
    return Played.of_run(outcome, player.calls, notes)


def work_on(
    play: Plays,
    package: TaskPackage,
    answer: ModelAnswer | ParameterAnswer | None,
    mode: str,
    policy: str,
) -> list[str]:
    """Put the answer in, simulate it at the verification settings, and in the harness state
    and adjudicate the checks. The notes say what did not go as a reference's should."""
    task = package.task
    parameters: dict[str, float] = {}
    if isinstance(answer, ModelAnswer):
        play("write_file", path=f"{task.model_name.rsplit('.', 1)[-1]}.mo", text=answer.final_model)
    elif isinstance(answer, ParameterAnswer):
        parameters = dict(answer.parameter_set)
    simulated = play(
        "simulate",
        must_succeed=policy == "reference",
        model=task.model_name,
        stop_time=task.stop_time,
        intervals=task.intervals,
        parameters=parameters,
    )
    if "error" in simulated or not simulated.get("ok"):
        return [
            f"simulate did not succeed: {simulated.get('error') or simulated.get('diagnostics')}"
        ]
    if mode != "harness" or policy == "offtarget:submits-initial":
        return []
    notes = []
    for check in checks_of(package):
        play(
            "add_invariant",
            name=check.name,
            proposition=check.proposition,
            observables=[_label(check.observable)],
            scenarios=[DEFAULT_SCENARIO],
            condition=check.condition,
        )
        measured = play(
            "evaluate_observable",
            must_succeed=policy == "reference",
            sim=simulated["sim_id"],
            observable=check.observable,
            condition=check.condition,
        )
        verdict = measured.get("suggested_adjudication") or "inconclusive"
        if verdict != "supported":
            notes.append(
                f"{check.name}: {verdict} ({measured.get('reason') or measured.get('error', '')})"
            )
        play(
            "record_evidence",
            invariant=check.name,
            adjudication=verdict,
            sim=simulated["sim_id"],
            observables=[_label(check.observable)],
            measurements={"value": measured.get("value")},
        )
    return notes


def submit_or_end(play: Plays, mode: str, policy: str) -> list[str]:
    """Harness: an explicit submit (override when not ready); plain: the loop's ending, the
    current candidate submitted implicitly."""
    run = play.run
    if mode != "harness":
        if run.candidate is None:
            return ["no candidate to submit: the workspace holds no model"]
        run.submit_implicitly(f"plain loop ended ({policy})")
        return []
    status = play("ledger_status")
    ready = bool(status.get("ready", False))
    submitted = play(
        "submit",
        must_succeed=False,
        note=f"{policy}: " + ("ready" if ready else "submitted with override, not ready"),
        override=not ready,
    )
    if "error" in submitted:
        return [f"submit refused: {submitted['error']}"]
    return [] if ready else ["submitted with override: the ledger was not ready"]


def checks_of(package: TaskPackage) -> list[Check]:
    """The contract's behaviour metrics on the default scenario, and the public targets, as
    observable + condition pairs (a bounds metric with both ends is two checks)."""
    metrics = [m for m in package.contract.metrics if m.scenario == DEFAULT_SCENARIO]
    metrics += package.target_metrics()
    checks: list[Check] = []
    for number, metric in enumerate(metrics, start=1):
        spec = metric.model_dump(exclude_none=True)
        base: dict[str, Any] = {"variable": metric.variable}
        base.update({k: spec[k] for k in ("start", "end") if k in spec})
        name = f"m{number}_{metric.type}_{metric.variable}"
        words = metric.about or f"{metric.type} of {metric.variable} as the task requires"
        for observable, condition in _observed(metric, base):
            suffix = f"_{observable['kind']}" if isinstance(metric, BoundsMetric) else ""
            checks.append(Check(name + suffix, words, observable, condition))
    return checks


def _observed(metric: Any, base: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The observable(s) measuring `metric` and the condition each must meet."""
    kind = metric.type
    if kind == "value_at_time":
        cond = {"target": metric.target, "tolerance": metric.tolerance}
        return [({**base, "type": kind, "time": metric.time}, cond)]
    if kind == "monotonic":
        observable = {
            **base,
            "type": kind,
            "direction": metric.direction,
            "tolerance": metric.tolerance,
        }
        return [(observable, {"equals": True})]
    if kind == "settling_time":
        return [({**base, "type": kind, "band": metric.band}, {"max": metric.max})]
    if kind == "overshoot":
        return [({**base, "type": kind}, {"max": metric.max})]
    if kind == "steady_state":
        cond = {"target": metric.target, "tolerance": metric.tolerance}
        return [({**base, "type": kind, "fraction": metric.fraction}, cond)]
    pairs = []
    if metric.max is not None:
        pairs.append(({**base, "type": "extremum", "kind": "max"}, {"max": metric.max}))
    if metric.min is not None:
        pairs.append(({**base, "type": "extremum", "kind": "min"}, {"min": metric.min}))
    return pairs


def _label(observable: dict[str, Any]) -> str:
    """How an invariant names its observable, e.g. 'value_at_time(vc, 0.5)'."""
    extra = observable.get("time", observable.get("kind", ""))
    inside = ", ".join(str(part) for part in (observable["variable"], extra) if part != "")
    return f"{observable['type']}({inside})"
