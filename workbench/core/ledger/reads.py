"""The ledger's queries: everything a tool, the readiness check or the GUI ledger view reads."""

from __future__ import annotations

import re
from typing import Any

from workbench.core.ledger.errors import LedgerError
from workbench.core.ledger.models import (
    Candidate,
    Evidence,
    Invariant,
    InvariantStatus,
    ReadinessReport,
    Status,
    StatusTable,
    Submission,
    Transition,
)
from workbench.core.ledger.rows import (
    CURRENT_INVARIANTS_ORDER,
    CURRENT_INVARIANTS_SELECT,
    EVIDENCE_SELECT,
    candidate_from_row,
    evidence_from_row,
    invariant_from_row,
    submission_from_row,
    transition_from_row,
)
from workbench.core.ledger.status import invariant_status
from workbench.core.store import Store

# Agents and people quote shortened hashes; accept a unique hex prefix of at least this length.
MIN_ID_PREFIX = 6
_HEX = re.compile(r"[0-9a-f]+")


class LedgerReads:
    """Read-only queries over the ledger tables of one workspace store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- candidates ---------------------------------------------------------------------------
    def subjects(self) -> list[str]:
        """Every subject that has a candidate or an invariant, sorted."""
        rows = self.store.query(
            "SELECT subject FROM ledger_candidates UNION SELECT subject FROM ledger_invariants"
            " ORDER BY subject"
        )
        return [row["subject"] for row in rows]

    def candidate(self, candidate: str | Candidate) -> Candidate:
        """Look a candidate up by its id, a unique prefix of it, or a `Candidate` record."""
        wanted = (candidate.id if isinstance(candidate, Candidate) else str(candidate)).lower()
        rows = []
        if len(wanted) >= MIN_ID_PREFIX and _HEX.fullmatch(wanted):
            rows = self.store.query(
                "SELECT * FROM ledger_candidates WHERE id LIKE ? ORDER BY seq LIMIT 2",
                (wanted + "%",),
            )
        if not rows:
            raise LedgerError(
                f"No candidate '{wanted}' in the ledger. Use the id returned by propose() (or a "
                f"unique prefix of at least {MIN_ID_PREFIX} hex digits); candidates(subject) "
                "lists the known ones."
            )
        if len(rows) > 1:
            raise LedgerError(
                f"The prefix '{wanted}' matches several candidates; give more digits of the id."
            )
        return candidate_from_row(rows[0])

    def candidates(self, subject: str | None = None) -> list[Candidate]:
        """Candidates in the order they were first proposed, optionally of one subject."""
        where, parameters = _where_subject(subject)
        rows = self.store.query(f"SELECT * FROM ledger_candidates{where} ORDER BY seq", parameters)
        return [candidate_from_row(row) for row in rows]

    def current(self, subject: str) -> Candidate | None:
        """The subject's most recently proposed candidate (the target of its latest transition)."""
        rows = self.store.query(
            "SELECT target_id FROM ledger_transitions WHERE subject = ? ORDER BY id DESC LIMIT 1",
            (subject,),
        )
        return self.candidate(rows[0]["target_id"]) if rows else None

    def transitions(self, subject: str | None = None) -> list[Transition]:
        where, parameters = _where_subject(subject)
        rows = self.store.query(f"SELECT * FROM ledger_transitions{where} ORDER BY id", parameters)
        return [transition_from_row(row) for row in rows]

    # -- invariants ---------------------------------------------------------------------------
    def invariants(self, subject: str) -> list[Invariant]:
        """The current version of each invariant of `subject`, in the order first defined."""
        rows = self.store.query(
            CURRENT_INVARIANTS_SELECT + " AND i.subject = ?" + CURRENT_INVARIANTS_ORDER,
            (subject,),
        )
        return [invariant_from_row(row) for row in rows]

    def invariant(self, subject: str, name: str) -> Invariant:
        """The current version of invariant `name` of `subject`."""
        rows = self.store.query(
            CURRENT_INVARIANTS_SELECT + " AND i.subject = ? AND i.name = ?", (subject, name)
        )
        if not rows:
            known = ", ".join(repr(i.name) for i in self.invariants(subject)) or "none"
            raise LedgerError(
                f"No invariant '{name}' for subject '{subject}' (defined: {known}). "
                "Define it first with define_invariant(), or check the subject and the spelling."
            )
        return invariant_from_row(rows[0])

    def invariant_versions(self, subject: str, name: str) -> list[Invariant]:
        """Every version of one invariant, oldest first (the ledger never forgets a definition)."""
        rows = self.store.query(
            "SELECT * FROM ledger_invariants WHERE subject = ? AND name = ? ORDER BY version",
            (subject, name),
        )
        return [invariant_from_row(row) for row in rows]

    # -- evidence -----------------------------------------------------------------------------
    def evidence(
        self,
        *,
        invariant: str | Invariant | None = None,
        candidate: str | Candidate | None = None,
        subject: str | None = None,
    ) -> list[Evidence]:
        """All evidence ever recorded, oldest first, filtered by any of the given arguments.

        `invariant` matches by name across all versions of the invariant (an `Invariant` record
        also pins its subject); nothing is ever removed, so this is the audit history.
        """
        clauses: list[str] = []
        parameters: list[Any] = []
        if isinstance(invariant, Invariant):
            clauses += ["i.name = ?", "i.subject = ?"]
            parameters += [invariant.name, invariant.subject]
        elif invariant is not None:
            clauses.append("i.name = ?")
            parameters.append(invariant)
        if candidate is not None:
            clauses.append("e.candidate_id = ?")
            parameters.append(self.candidate(candidate).id)
        if subject is not None:
            clauses.append("i.subject = ?")
            parameters.append(subject)
        where = " WHERE " + " AND ".join(clauses) if clauses else ""
        rows = self.store.query(EVIDENCE_SELECT + where + " ORDER BY e.id", tuple(parameters))
        return [evidence_from_row(row) for row in rows]

    def evidence_record(self, evidence_id: int) -> Evidence:
        rows = self.store.query(EVIDENCE_SELECT + " WHERE e.id = ?", (evidence_id,))
        if not rows:
            raise LedgerError(f"No evidence record {evidence_id} in the ledger.")
        return evidence_from_row(rows[0])

    def history(self, candidate: str | Candidate) -> list[Evidence]:
        """Every evidence record bound to `candidate`, oldest first, whatever its adjudication."""
        return self.evidence(candidate=candidate)

    # -- status and readiness -------------------------------------------------------------------
    def status(self, *, candidate: str | Candidate, invariant: str | Invariant) -> InvariantStatus:
        """The status of one invariant for one candidate (rule: `workbench.core.ledger.status`)."""
        found = self.candidate(candidate)
        name = invariant.name if isinstance(invariant, Invariant) else invariant
        current = self.invariant(found.subject, name)
        return invariant_status(current, found.id, self.evidence(candidate=found))

    def readiness(self, candidate: str | Candidate) -> ReadinessReport:
        """ready(c) iff every required invariant of c's subject is supported for c.

        The report lists every current invariant of the subject (required or not) with its status
        and what is missing; `blocking` picks the required ones that are not supported.
        """
        found = self.candidate(candidate)
        history = self.evidence(candidate=found)
        statuses = [
            invariant_status(invariant, found.id, history)
            for invariant in self.invariants(found.subject)
        ]
        ready = all(s.status is Status.SUPPORTED for s in statuses if s.required)
        return ReadinessReport(
            candidate_id=found.id, subject=found.subject, ready=ready, invariants=statuses
        )

    def status_table(self, subject: str) -> StatusTable:
        """Candidate x invariant -> status for the ledger view, from two queries."""
        candidates = self.candidates(subject)
        invariants = self.invariants(subject)
        by_candidate: dict[str, list[Evidence]] = {}
        for record in self.evidence(subject=subject):
            by_candidate.setdefault(record.candidate_id, []).append(record)
        cells = {
            candidate.id: {
                invariant.name: invariant_status(
                    invariant, candidate.id, by_candidate.get(candidate.id, [])
                ).status
                for invariant in invariants
            }
            for candidate in candidates
        }
        return StatusTable(
            subject=subject,
            candidate_ids=[candidate.id for candidate in candidates],
            invariant_names=[invariant.name for invariant in invariants],
            cells=cells,
        )

    # -- submissions ----------------------------------------------------------------------------
    def submissions(self, subject: str | None = None) -> list[Submission]:
        where, parameters = _where_subject(subject)
        rows = self.store.query(f"SELECT * FROM ledger_submissions{where} ORDER BY id", parameters)
        return [submission_from_row(row) for row in rows]

    def submission(self, submission_id: int) -> Submission:
        rows = self.store.query("SELECT * FROM ledger_submissions WHERE id = ?", (submission_id,))
        if not rows:
            raise LedgerError(
                f"No submission {submission_id} in the ledger; submissions() lists them."
            )
        return submission_from_row(rows[0])


def _where_subject(subject: str | None) -> tuple[str, tuple[Any, ...]]:
    return (" WHERE subject = ?", (subject,)) if subject is not None else ("", ())
