"""SQL for reading ledger tables, and the conversion of their rows into records."""

from __future__ import annotations

import json
import sqlite3

from workbench.core.ledger.models import (
    Adjudication,
    Candidate,
    Evidence,
    Invariant,
    InvariantKind,
    ReadinessReport,
    Submission,
    Transition,
)

# Evidence rows carry their invariant's name, subject and spec so status needs no second lookup.
EVIDENCE_SELECT = (
    "SELECT e.*, i.subject AS subject, i.name AS invariant_name,"
    " i.spec_sha256 AS invariant_spec_sha256"
    " FROM ledger_evidence e JOIN ledger_invariants i ON i.id = e.invariant_id"
)

# The current version of every invariant, listed in the order the names were first defined.
CURRENT_INVARIANTS_SELECT = (
    "SELECT i.* FROM ledger_invariants i"
    " WHERE i.version = (SELECT MAX(version) FROM ledger_invariants j"
    "   WHERE j.subject = i.subject AND j.name = i.name)"
)
CURRENT_INVARIANTS_ORDER = (
    " ORDER BY (SELECT MIN(id) FROM ledger_invariants k"
    "   WHERE k.subject = i.subject AND k.name = i.name)"
)


def candidate_from_row(row: sqlite3.Row) -> Candidate:
    return Candidate(
        id=row["id"],
        subject=row["subject"],
        kind=row["kind"],
        content=json.loads(row["content"]),
        label=row["label"],
        created=row["created"],
    )


def transition_from_row(row: sqlite3.Row) -> Transition:
    return Transition(
        id=row["id"],
        subject=row["subject"],
        source_id=row["source_id"],
        target_id=row["target_id"],
        action=row["action"],
        created=row["created"],
    )


def invariant_from_row(row: sqlite3.Row) -> Invariant:
    return Invariant(
        id=row["id"],
        subject=row["subject"],
        name=row["name"],
        version=row["version"],
        proposition=row["proposition"],
        kind=InvariantKind(row["kind"]),
        required=bool(row["required"]),
        observables=json.loads(row["observables"]),
        scenarios=json.loads(row["scenarios"]),
        condition=json.loads(row["condition"]),
        spec_sha256=row["spec_sha256"],
        created=row["created"],
    )


def evidence_from_row(row: sqlite3.Row) -> Evidence:
    return Evidence(
        id=row["id"],
        subject=row["subject"],
        invariant_id=row["invariant_id"],
        invariant_name=row["invariant_name"],
        invariant_spec_sha256=row["invariant_spec_sha256"],
        candidate_id=row["candidate_id"],
        scenario=row["scenario"],
        observables=json.loads(row["observables"]),
        measurements=json.loads(row["measurements"]),
        adjudication=Adjudication(row["adjudication"]),
        note=row["note"],
        tool_call_id=row["tool_call_id"],
        created=row["created"],
    )


def submission_from_row(row: sqlite3.Row) -> Submission:
    return Submission(
        id=row["id"],
        candidate_id=row["candidate_id"],
        subject=row["subject"],
        kind=row["kind"],
        content=json.loads(row["content"]),
        readiness=ReadinessReport.model_validate_json(row["readiness"]),
        override=bool(row["override"]),
        note=row["note"],
        created=row["created"],
    )
