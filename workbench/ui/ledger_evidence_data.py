"""What the ledger view's evidence detail shows, read in one go off the GUI thread (no Qt here).

Evidence is bound to the tool call that produced its data (`Evidence.tool_call_id`); a tool that
simulates keeps the trajectories as a store artifact of that same call, as JSON with a `time`
list and a `series` mapping. So the trajectory behind a piece of evidence is found without
knowing which plugin made it. Evidence recorded without a tool call is matched by the artifact
meta naming the same candidate and the simulation named in the measurements.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from workbench.core.ledger import Evidence, Invariant, InvariantStatus, Ledger, LedgerError
from workbench.core.store import Artifact, Store, StoreError

NAME = re.compile(r"[A-Za-z_][\w.]*")
AT_TIME = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\(\s*([-+0-9.eE]+)\s*\)\s*$")  # "vc(10)"
TIME_VALUED = ("settl", "rise", "time_to", "delay")  # observables measured in seconds
MAX_POINTS = 5000  # more points than a dock plot can show are thinned before painting


@dataclass(frozen=True)
class Bound:
    """A limit from the invariant's condition: a line (low == high) or a band, on y or on x."""

    low: float
    high: float
    label: str
    axis: str = "y"  # "x" when the observable is a time (settling time <= 2 s)

    @property
    def is_band(self) -> bool:
        return self.low != self.high


@dataclass(frozen=True)
class Marker:
    """A value the evidence names at one instant ("vc(10)"), read off the trajectory."""

    variable: str
    time: float
    value: float


@dataclass
class Trajectory:
    variable: str
    time: list[float]
    values: list[float]
    source: str  # "artifact 12 (RCCharge.trajectories.json)"


@dataclass
class EvidenceDetail:
    """One candidate x invariant cell: its evidence, the trajectory behind it and the bounds."""

    candidate_id: str
    invariant: Invariant | None
    status: InvariantStatus | None = None
    evidence: list[Evidence] = field(default_factory=list)
    trajectory: Trajectory | None = None
    bounds: list[Bound] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    problem: str = ""  # why there is no trajectory (read by a person)

    @property
    def chosen(self) -> Evidence | None:
        """The evidence shown: the newest that decided the status, else the newest at all."""
        deciding = set(self.status.deciding_evidence) if self.status else set()
        decided = [e for e in self.evidence if e.id in deciding]
        shown = decided or self.evidence
        return shown[-1] if shown else None


def read_evidence_detail(
    ledger: Ledger, store: Store, candidate_id: str, invariant_name: str
) -> EvidenceDetail:
    """Everything the detail panel paints for one cell (SQLite and file I/O: off the GUI thread)."""
    try:
        candidate = ledger.candidate(candidate_id)
        invariant = ledger.invariant(candidate.subject, invariant_name)
    except LedgerError as error:
        return EvidenceDetail(candidate_id, None, problem=str(error))
    detail = EvidenceDetail(
        candidate_id=candidate.id,
        invariant=invariant,
        status=ledger.status(candidate=candidate, invariant=invariant),
        evidence=ledger.evidence(candidate=candidate, invariant=invariant),
    )
    detail.bounds = bounds_of(invariant)
    chosen = detail.chosen
    if chosen is None:
        detail.problem = "No evidence yet for this candidate and invariant."
        return detail
    artifact = trajectory_artifact(store, chosen)
    if artifact is None:
        detail.problem = "This evidence names no stored simulation, so there is nothing to plot."
        return detail
    try:
        data = json.loads(artifact.path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        detail.problem = f"The trajectories of artifact {artifact.id} could not be read ({error})."
        return detail
    detail.trajectory, detail.markers = _trajectory(data, artifact, chosen, invariant)
    if detail.trajectory is None:
        detail.problem = f"Artifact {artifact.id} holds no trajectory (no time and series)."
    return detail


def trajectory_artifact(store: Store, evidence: Evidence) -> Artifact | None:
    """The stored trajectories the evidence was drawn from (see the module docstring)."""
    try:
        artifacts = store.artifacts()
    except StoreError:
        return None
    if evidence.tool_call_id is not None:
        same_call = [a for a in artifacts if a.tool_call_id == evidence.tool_call_id]
        if same_call:
            return same_call[-1]
    simulation = evidence.measurements.get("simulation")
    if not simulation:
        return None
    named = [
        a
        for a in artifacts
        if a.meta.get("sim_id") == simulation
        and a.meta.get("candidate_id") == evidence.candidate_id
    ]
    return named[-1] if named else None


def bounds_of(invariant: Invariant) -> list[Bound]:
    """target +- tolerance (absolute or relative) as a band; min and max as lines."""
    condition: dict[str, Any] = invariant.condition
    on = "x" if _time_valued(invariant.observables) else "y"
    bounds: list[Bound] = []
    target, tolerance = _number(condition.get("target")), _number(condition.get("tolerance"))
    if target is not None:
        allowed = (tolerance or 0.0) * (abs(target) if condition.get("relative") else 1.0)
        label = f"target {target:g} ± {allowed:g}" if allowed else f"target {target:g}"
        bounds.append(Bound(target - allowed, target + allowed, label, on))
    for key in ("min", "max"):
        value = _number(condition.get(key))
        if value is not None:
            bounds.append(Bound(value, value, f"{key} {value:g}", on))
    return bounds


def describe_condition(condition: dict[str, Any]) -> str:
    if not condition:
        return "none stated (adjudicated by whoever recorded the evidence)"
    return ", ".join(f"{key} {value}" for key, value in condition.items())


def _trajectory(
    data: Any, artifact: Artifact, evidence: Evidence, invariant: Invariant
) -> tuple[Trajectory | None, list[Marker]]:
    if not isinstance(data, dict):
        return None, []
    time, series = data.get("time"), data.get("series")
    if not isinstance(time, list) or not isinstance(series, dict) or not series:
        return None, []
    variable = _variable(evidence, invariant, list(series))
    values = series[variable]
    step = max(1, len(time) // MAX_POINTS)
    trajectory = Trajectory(
        variable=variable,
        time=[float(t) for t in time[::step]],
        values=[_finite(v) for v in values[::step]],
        source=f"artifact {artifact.id} ({artifact.name})",
    )
    return trajectory, _markers(evidence.observables, time, values, variable)


def _variable(evidence: Evidence, invariant: Invariant, names: list[str]) -> str:
    """The series the evidence speaks of: named in its observables, measurements or proposition."""
    texts = [*evidence.observables, *invariant.observables]
    texts += [str(key) for key in evidence.measurements]
    texts += _strings(evidence.measurements)
    texts.append(invariant.proposition)
    known = set(names)
    for text in texts:
        for token in NAME.findall(text):
            if token in known:
                return token
    return names[0]


def _markers(
    observables: list[str], time: list[float], values: list[float], variable: str
) -> list[Marker]:
    markers = []
    for text in observables:
        match = AT_TIME.match(text)
        if match and match.group(1) == variable:
            at = float(match.group(2))
            markers.append(Marker(variable, at, _value_at(time, values, at)))
    return markers


def _value_at(time: list[float], values: list[float], at: float) -> float:
    """Linear interpolation, clamped to the run's ends."""
    if not time:
        return math.nan
    if at <= time[0]:
        return float(values[0])
    for index in range(1, len(time)):
        if time[index] >= at:
            t0, t1, y0, y1 = time[index - 1], time[index], values[index - 1], values[index]
            share = 0.0 if t1 == t0 else (at - t0) / (t1 - t0)
            return float(y0 + share * (y1 - y0))
    return float(values[-1])


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _time_valued(observables: list[str]) -> bool:
    return any(word in text.lower() for text in observables for word in TIME_VALUED)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _finite(value: Any) -> float:
    number = _number(value)
    return number if number is not None and math.isfinite(number) else math.nan
