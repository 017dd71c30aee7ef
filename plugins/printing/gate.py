"""The ledger gate before every print: a file is printed only when it is tied to a ready candidate.

The tie is artifact lineage, found by content hash in the workspace store: an artifact whose
`meta["candidate_id"]` names a ledger candidate (convert_design_to_stl's STL) passes it on to the
G-code sliced from it (slice_model stores it in the G-code artifact's meta), so upload_and_print
finds the candidate of the file it is given without being told. A file whose candidate is not
ready, or whose origin is unknown (not sliced in this workspace from a candidate's STL, or edited
since), is refused unless overridden. An override needs a reason, and it is recorded twice: in
the tool call (arguments and result) and, when there is a candidate, in the ledger, as evidence
on the non-required invariant `print_override` of the candidate's subject, with the blocking
reasons, the printer and the file as measurements.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from workbench.core.ledger import Adjudication, InvariantKind, Ledger, LedgerError
from workbench.core.store import Store, sha256_of_file
from workbench.core.tools import ToolFailure

OVERRIDE_INVARIANT = "print_override"
UNKNOWN_ORIGIN = "unknown_origin"  # a blocking reason of its own, beside the invariants
# how every gate refusal starts: the printer panel recognises it and offers an override
REFUSED = "Refused to print:"


@dataclass(frozen=True)
class Lineage:
    sha256: str
    candidate_id: str | None  # the ledger candidate the file was made from, if known


def file_lineage(store: Store, path: Path) -> Lineage:
    """The candidate a file was made from: the newest artifact with the same content that names
    one (the file may be a copy: the hash is what counts, not the name)."""
    digest = sha256_of_file(path)
    rows = store.query("SELECT id FROM artifacts WHERE sha256 = ? ORDER BY id DESC", (digest,))
    for row in rows:
        candidate_id = store.artifact(row["id"]).meta.get("candidate_id")
        if candidate_id:
            return Lineage(digest, str(candidate_id))
    return Lineage(digest, None)


@dataclass(frozen=True)
class GateDecision:
    candidate_id: str | None
    ready: bool | None
    overridden: bool
    blocking: list[str]
    explanation: str


def check_print(
    ledger: Ledger,
    store: Store,
    gcode: Path,
    named: str | None,
    *,
    override: bool,
    reason: str,
) -> GateDecision:
    """Pass, pass overridden, or a ToolFailure saying why the file may not be printed."""
    origin = file_lineage(store, gcode).candidate_id
    if named and origin and origin != _known(ledger, named):
        raise ToolFailure(
            f"{gcode.name} was sliced from candidate {origin[:12]}, not {named}.",
            hint="Leave candidate_id out: the print gate finds the file's candidate itself.",
        )
    blocking: list[str] = []
    reasons: list[str] = []
    if origin is None:
        blocking.append(UNKNOWN_ORIGIN)
        reasons.append(
            f"the origin of {gcode.name} is unknown: it was not sliced in this workspace from "
            "the STL of a ledger candidate (or it was changed since)"
        )
    ready: bool | None = None
    candidate_id = origin or (_known(ledger, named) if named else None)
    if candidate_id is not None:
        report = ledger.readiness(_known(ledger, candidate_id))
        ready = report.ready
        blocking += [status.invariant_name for status in report.blocking]
        if not report.ready or not reasons:
            reasons.append(report.explain())
    explanation = "; ".join(reasons)
    if not blocking:
        return GateDecision(candidate_id, ready, False, [], explanation)
    if not override:
        raise ToolFailure(
            f"{REFUSED} {explanation}",
            hint="Slice the STL that convert_design_to_stl exported for a ready candidate (or "
            "fix the design and record the missing evidence). To print anyway the engineer "
            "must say so: call again with override=true and an override_reason.",
        )
    if not reason.strip():
        raise ToolFailure(
            "An override of the print gate needs an override_reason from the engineer.",
            hint="Call again with override_reason saying why it is printed anyway.",
        )
    return GateDecision(candidate_id, ready, True, blocking, explanation)


def _known(ledger: Ledger, candidate_id: str) -> str:
    """The full id of a candidate the caller named (a prefix works, as in the ledger view)."""
    try:
        return ledger.candidate(candidate_id).id
    except LedgerError as error:
        raise ToolFailure(str(error), hint="Pass the candidate id the ledger shows.") from None


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
        note=f"Printed although the gate refused it ({', '.join(decision.blocking)}), "
        f"overridden by the engineer: {reason}",
        tool_call_id=tool_call_id,
    )
    return evidence.id
