"""The ledger gate before a print: a candidate that is not ready is refused unless overridden.

An override needs a reason, and it is recorded twice: in the tool call (arguments and result) and
in the ledger, as evidence on the non-required invariant `print_override` of the candidate's
subject, with the blocking invariants, the printer and the file as measurements.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.ledger import Adjudication, InvariantKind, Ledger, LedgerError
from workbench.core.tools import ToolFailure

OVERRIDE_INVARIANT = "print_override"


@dataclass(frozen=True)
class GateDecision:
    candidate_id: str | None
    ready: bool | None
    overridden: bool
    blocking: list[str]
    explanation: str


def check_candidate(
    ledger: Ledger, candidate_id: str | None, *, override: bool, reason: str
) -> GateDecision:
    if not candidate_id:
        return GateDecision(None, None, False, [], "no ledger candidate named")
    try:
        report = ledger.readiness(candidate_id)
    except LedgerError as error:
        raise ToolFailure(str(error), hint="Pass the candidate id the ledger shows.") from None
    blocking = [status.invariant_name for status in report.blocking]
    if report.ready:
        return GateDecision(report.candidate_id, True, False, [], report.explain())
    if not override:
        raise ToolFailure(
            f"Refused to print: {report.explain()}",
            hint="Fix the design (or record the missing evidence). To print anyway the engineer "
            "must say so: call again with override=true and an override_reason.",
        )
    if not reason.strip():
        raise ToolFailure(
            "An override of a non-ready candidate needs an override_reason from the engineer.",
            hint="Call again with override_reason saying why it is printed anyway.",
        )
    return GateDecision(report.candidate_id, False, True, blocking, report.explain())


def record_override(
    ledger: Ledger,
    decision: GateDecision,
    *,
    reason: str,
    printer: str,
    gcode: str,
    tool_call_id: int,
) -> int | None:
    if not decision.overridden or decision.candidate_id is None:
        return None
    candidate = ledger.candidate(decision.candidate_id)
    ledger.define_invariant(
        candidate.subject,
        OVERRIDE_INVARIANT,
        "The candidate was printed only when ready, or with an engineer's recorded override.",
        kind=InvariantKind.CONSTRAINT,
        observables=["blocking"],
        required=False,  # a record, not a gate: it must never make a candidate look ready
    )
    evidence = ledger.record_evidence(
        candidate=candidate,
        invariant=OVERRIDE_INVARIANT,
        adjudication=Adjudication.INCONCLUSIVE,
        measurements={"blocking": decision.blocking, "printer": printer, "gcode": gcode},
        note=f"Printed although not ready, overridden by the engineer: {reason}",
        tool_call_id=tool_call_id,
    )
    return evidence.id
