"""What the ledger holds and reports: immutable pydantic records, one per table, plus reports."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict


class Adjudication(StrEnum):
    """How the one who ran a check judged its result against the invariant's condition."""

    SUPPORTED = "supported"
    VIOLATED = "violated"
    INCONCLUSIVE = "inconclusive"


class Status(StrEnum):
    """Where an invariant stands for one candidate (see `workbench.core.ledger.status`)."""

    OPEN = "open"
    SUPPORTED = "supported"
    VIOLATED = "violated"
    INCONCLUSIVE = "inconclusive"


class InvariantKind(StrEnum):
    PHYSICAL = "physical"  # conservation, sign, boundedness
    CONSTRAINT = "constraint"  # interfaces, structure, parameter bounds, fits the bed
    BEHAVIOURAL = "behavioural"  # response under a scenario


class _Record(BaseModel):
    # Records mirror append-only rows, so they are frozen too.
    model_config = ConfigDict(frozen=True)


class Candidate(_Record):
    """A content-addressed artifact: `id` is the sha256 of (subject, kind, content)."""

    id: str
    subject: str
    kind: str
    content: dict[str, Any]
    label: str
    created: float

    @property
    def short_id(self) -> str:
        return self.id[:12]


class Transition(_Record):
    """One `propose` that made `target_id` the subject's current candidate.

    `source_id` is the parent it was derived from, or None for a candidate proposed from scratch.
    """

    id: int
    subject: str
    source_id: str | None
    target_id: str
    action: str
    created: float


class Invariant(_Record):
    """i = <proposition, observables, scenarios, condition> of one subject, in one version.

    Redefining an invariant with a different proposition, observables, scenarios or condition adds
    a new version (new `id`, new `spec_sha256`); evidence adjudicated against another spec does not
    count for it. Changing only `kind` or `required` keeps the evidence valid.
    """

    id: int
    subject: str
    name: str
    version: int
    proposition: str
    kind: InvariantKind
    required: bool
    observables: list[str]
    scenarios: list[str]
    condition: dict[str, Any]
    spec_sha256: str
    created: float


class Evidence(_Record):
    """e = <invariant, candidate, scenario, observables, measurements, adjudication>."""

    id: int
    subject: str
    invariant_id: int
    invariant_name: str
    invariant_spec_sha256: str
    candidate_id: str
    scenario: str
    observables: list[str]
    measurements: dict[str, Any]
    adjudication: Adjudication
    note: str
    tool_call_id: int | None
    created: float


class InvariantStatus(_Record):
    """The status of one invariant for one candidate, with what is still missing.

    `missing_scenarios` lists scenarios not yet fully covered by evidence for the candidate;
    `missing_observables` maps such a scenario to the declared observables nobody inspected there.
    `scenario_status` gives the status of every declared scenario; `deciding_evidence` the ids of
    the evidence records that decided it (the latest per scenario and observable).
    """

    invariant_id: int
    invariant_name: str
    required: bool
    status: Status
    scenario_status: dict[str, Status]
    missing_scenarios: list[str]
    missing_observables: dict[str, list[str]]
    deciding_evidence: list[int]

    def describe(self) -> str:
        """One line for messages: name, status and what would change it."""
        if self.status is Status.SUPPORTED:
            return f"'{self.invariant_name}' is supported"
        stuck = [name for name, status in self.scenario_status.items() if status is self.status]
        if self.status is Status.OPEN:
            gaps = [
                f"{name} (observables: {', '.join(self.missing_observables[name])})"
                if self.missing_observables.get(name)
                else name
                for name in self.missing_scenarios
            ]
            return (
                f"'{self.invariant_name}' is open: no evidence yet for scenario {', '.join(gaps)}"
            )
        return f"'{self.invariant_name}' is {self.status} in scenario {', '.join(stuck)}"


class ReadinessReport(_Record):
    """ready(c) iff every required invariant of c's subject is supported for c.

    A subject with no required invariants is vacuously ready.
    """

    candidate_id: str
    subject: str
    ready: bool
    invariants: list[InvariantStatus]

    @property
    def blocking(self) -> list[InvariantStatus]:
        """The required invariants that are not supported for this candidate."""
        return [s for s in self.invariants if s.required and s.status is not Status.SUPPORTED]

    def explain(self) -> str:
        if self.ready:
            return f"Candidate {self.candidate_id[:12]} ({self.subject}) is ready."
        reasons = "; ".join(status.describe() for status in self.blocking)
        return f"Candidate {self.candidate_id[:12]} ({self.subject}) is not ready: {reasons}."


class Submission(_Record):
    """An explicit, frozen submission: the exact content and the readiness seen at that moment.

    `override` is True when the candidate was submitted although it was not ready.
    """

    id: int
    candidate_id: str
    subject: str
    kind: str
    content: dict[str, Any]
    readiness: ReadinessReport
    override: bool
    note: str
    created: float


class StatusTable(_Record):
    """Candidate x invariant -> status for one subject, in creation / definition order."""

    subject: str
    candidate_ids: list[str]
    invariant_names: list[str]
    cells: dict[str, dict[str, Status]]

    def status(self, candidate_id: str, invariant_name: str) -> Status:
        return self.cells[candidate_id][invariant_name]
