"""The engineering ledger: candidates, transitions, invariants, evidence and explicit submission.

Everything is appended, never changed: SQLite triggers (migration step 2) refuse UPDATE and DELETE
on every ledger table, so old evidence stays in the audit history and a submission stays exactly
what was submitted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from workbench.core.ledger import checks
from workbench.core.ledger.canonical import candidate_id, canonical_json, sha256_of_json
from workbench.core.ledger.errors import LedgerError
from workbench.core.ledger.models import (
    Adjudication,
    Candidate,
    Evidence,
    Invariant,
    InvariantKind,
    Submission,
)
from workbench.core.ledger.reads import LedgerReads
from workbench.core.store import Store

ChangeCallback = Callable[[str, dict[str, Any]], None]

logger = logging.getLogger(__name__)


class Ledger(LedgerReads):
    """The engineering ledger of one workspace store, shared by every plugin.

    `on_change(kind, payload)` is called after each write that changed something, with kind one of
    "candidate.proposed", "invariant.defined", "evidence.recorded", "candidate.submitted". When the
    write runs inside an outer `store.transaction()` the call comes before that outer commit.
    """

    def __init__(self, store: Store, on_change: ChangeCallback | None = None) -> None:
        super().__init__(store)
        self._on_change = on_change

    # -- candidates ---------------------------------------------------------------------------
    def propose(
        self,
        subject: str,
        kind: str,
        content: dict[str, Any],
        *,
        parent: str | Candidate | None = None,
        action: str | None = None,
        label: str = "",
    ) -> Candidate:
        """Record `content` as a candidate of `subject` and make it the subject's current one.

        Identical (subject, kind, content) gives the same candidate: its id is a content hash, and
        its first label is kept. Each call also records a transition `parent -> candidate` caused
        by `action` (default "create" without a parent, "revise" with one); a repeat of the
        subject's latest transition is not recorded twice.
        """
        subject = checks.text(subject, "subject")
        kind = checks.text(kind, "candidate kind")
        content = checks.mapping(content, "candidate content")
        source = self.candidate(parent) if parent is not None else None
        if source is not None and source.subject != subject:
            raise LedgerError(
                f"The parent candidate {source.short_id} belongs to subject '{source.subject}', "
                f"not '{subject}'. Propose the candidate under its parent's subject, or omit the "
                "parent to start a new lineage."
            )
        action = checks.text(action or ("revise" if source else "create"), "action")
        identity = candidate_id(subject, kind, content)
        stored_content = canonical_json(content, what="candidate content")
        source_id = source.id if source else None
        now = time.time()
        with self.store.transaction() as db:
            created = db.execute(
                "INSERT OR IGNORE INTO ledger_candidates (id, subject, kind, content, label,"
                " created) VALUES (?, ?, ?, ?, ?, ?)",
                (identity, subject, kind, stored_content, label or "", now),
            ).rowcount
            latest = db.execute(
                "SELECT source_id, target_id, action FROM ledger_transitions WHERE subject = ?"
                " ORDER BY id DESC LIMIT 1",
                (subject,),
            ).fetchone()
            repeated = latest is not None and tuple(latest) == (source_id, identity, action)
            if not repeated:
                db.execute(
                    "INSERT INTO ledger_transitions (subject, source_id, target_id, action,"
                    " created) VALUES (?, ?, ?, ?, ?)",
                    (subject, source_id, identity, action, now),
                )
        if created or not repeated:
            self._notify(
                "candidate.proposed",
                {
                    "subject": subject,
                    "candidate_id": identity,
                    "kind": kind,
                    "parent_id": source_id,
                    "action": action,
                    "new": bool(created),
                },
            )
        return self.candidate(identity)

    # -- invariants ---------------------------------------------------------------------------
    def define_invariant(
        self,
        subject: str,
        name: str,
        proposition: str,
        *,
        kind: InvariantKind | str,
        observables: Sequence[str] = (),
        scenarios: Sequence[str] = ("default",),
        condition: dict[str, Any] | None = None,
        required: bool = True,
    ) -> Invariant:
        """Define (or redefine) invariant `name` of `subject`: <proposition, O, S, condition>.

        The same definition again is a no-op. A different one adds a new version; evidence keeps
        counting only if the proposition, observables, scenarios and condition are unchanged.
        """
        subject = checks.text(subject, "subject")
        name = checks.text(name, "invariant name")
        proposition = checks.text(proposition, "proposition")
        kind = checks.choice(kind, InvariantKind, "invariant kind")
        observables = checks.names(observables, "observables")
        scenarios = checks.names(scenarios, "scenarios")
        if not scenarios:
            raise LedgerError(
                f"Invariant '{name}' needs at least one scenario; use ['default'] if there is "
                "only one way to check it."
            )
        condition = checks.mapping(condition, "condition")
        spec = {
            "proposition": proposition,
            "observables": sorted(observables),
            "scenarios": sorted(scenarios),
            "condition": condition,
        }
        spec_sha256 = sha256_of_json(spec, what="invariant definition")
        with self.store.transaction() as db:
            versions = self.invariant_versions(subject, name)
            latest = versions[-1] if versions else None
            if latest and _repeats(latest, spec_sha256, kind, required, observables, scenarios):
                return latest
            version = latest.version + 1 if latest else 1
            db.execute(
                "INSERT INTO ledger_invariants (subject, name, version, proposition, kind,"
                " required, observables, scenarios, condition, spec_sha256, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    subject,
                    name,
                    version,
                    proposition,
                    kind.value,
                    int(bool(required)),
                    canonical_json(observables, what="observables"),
                    canonical_json(scenarios, what="scenarios"),
                    canonical_json(condition, what="condition"),
                    spec_sha256,
                    time.time(),
                ),
            )
        defined = self.invariant(subject, name)
        self._notify(
            "invariant.defined",
            {"subject": subject, "name": name, "invariant_id": defined.id, "version": version},
        )
        return defined

    # -- evidence -----------------------------------------------------------------------------
    def record_evidence(
        self,
        *,
        candidate: str | Candidate,
        invariant: str | Invariant,
        adjudication: Adjudication | str,
        scenario: str | None = None,
        observables: Sequence[str] | None = None,
        measurements: dict[str, Any] | None = None,
        note: str = "",
        tool_call_id: int | None = None,
    ) -> Evidence:
        """Bind an adjudicated result to a candidate: e = <i, c, s, O, measurements, a>.

        A result is evidence only once judged against the invariant's condition, so
        `adjudication` (supported | violated | inconclusive) is required. `scenario` may be
        omitted when the invariant declares exactly one; `observables` default to all the
        invariant declares and must be among them.
        """
        verdict = checks.choice(adjudication, Adjudication, "adjudication")
        measured = canonical_json(checks.mapping(measurements, "measurements"), what="measurements")
        # Resolve inside the transaction so a concurrent redefinition cannot slip in between.
        with self.store.transaction() as db:
            found = self.candidate(candidate)
            target = self._invariant_for(found, invariant)
            scenario = self._scenario_for(target, scenario)
            inspected = self._observables_for(target, observables)
            self._check_tool_call(tool_call_id)
            evidence_id = db.execute(
                "INSERT INTO ledger_evidence (invariant_id, candidate_id, scenario, observables,"
                " measurements, adjudication, note, tool_call_id, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    target.id,
                    found.id,
                    scenario,
                    canonical_json(inspected, what="observables"),
                    measured,
                    verdict.value,
                    note or "",
                    tool_call_id,
                    time.time(),
                ),
            ).lastrowid
        recorded = self.evidence_record(int(evidence_id or 0))
        status = self.status(candidate=found, invariant=target)
        self._notify(
            "evidence.recorded",
            {
                "subject": found.subject,
                "candidate_id": found.id,
                "invariant": target.name,
                "scenario": scenario,
                "adjudication": verdict.value,
                "evidence_id": recorded.id,
                "status": status.status.value,
            },
        )
        return recorded

    # -- submission ---------------------------------------------------------------------------
    def submit(
        self, candidate: str | Candidate, *, note: str = "", override: bool = False
    ) -> Submission:
        """Explicitly submit `candidate`, freezing its content and its readiness at this moment.

        Refused unless the candidate is ready; `override=True` submits anyway and the submission
        records that it was overridden (`override` is stored True only when it was needed).
        """
        with self.store.transaction() as db:
            found = self.candidate(candidate)
            report = self.readiness(found)
            if not report.ready and not override:
                raise LedgerError(
                    f"{report.explain()} Record adjudicated evidence for this candidate, revise "
                    "it, or submit with override=True to record a deliberate override."
                )
            submission_id = db.execute(
                "INSERT INTO ledger_submissions (candidate_id, subject, kind, content, readiness,"
                " override, note, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    found.id,
                    found.subject,
                    found.kind,
                    canonical_json(found.content, what="candidate content"),
                    report.model_dump_json(),
                    int(not report.ready),
                    note or "",
                    time.time(),
                ),
            ).lastrowid
        submitted = self.submission(int(submission_id or 0))
        self._notify(
            "candidate.submitted",
            {
                "subject": found.subject,
                "candidate_id": found.id,
                "submission_id": submitted.id,
                "ready": report.ready,
                "override": submitted.override,
            },
        )
        return submitted

    # -- helpers --------------------------------------------------------------------------------
    def _invariant_for(self, candidate: Candidate, invariant: str | Invariant) -> Invariant:
        name = invariant.name if isinstance(invariant, Invariant) else invariant
        if isinstance(invariant, Invariant) and invariant.subject != candidate.subject:
            raise LedgerError(
                f"Invariant '{name}' belongs to subject '{invariant.subject}' but candidate "
                f"{candidate.short_id} belongs to '{candidate.subject}'; evidence must bind an "
                "invariant and a candidate of the same subject."
            )
        current = self.invariant(candidate.subject, checks.text(name, "invariant name"))
        if isinstance(invariant, Invariant) and invariant.id != current.id:
            raise LedgerError(
                f"Invariant '{name}' was redefined (now version {current.version}); adjudicate "
                "against its current definition from invariant() or invariants()."
            )
        return current

    @staticmethod
    def _scenario_for(invariant: Invariant, scenario: str | None) -> str:
        declared = ", ".join(invariant.scenarios)
        if scenario is None:
            if len(invariant.scenarios) == 1:
                return invariant.scenarios[0]
            raise LedgerError(
                f"Invariant '{invariant.name}' has several scenarios ({declared}); say which one "
                "this evidence is for."
            )
        if scenario not in invariant.scenarios:
            raise LedgerError(
                f"Invariant '{invariant.name}' declares no scenario '{scenario}' (it declares: "
                f"{declared}). Record the evidence under one of those, or redefine the invariant "
                "with the scenario added."
            )
        return scenario

    @staticmethod
    def _observables_for(invariant: Invariant, observables: Sequence[str] | None) -> list[str]:
        inspected = checks.names(observables, "observables")
        if not inspected:
            return list(invariant.observables)
        unknown = [o for o in inspected if invariant.observables and o not in invariant.observables]
        if unknown:
            raise LedgerError(
                f"Invariant '{invariant.name}' declares no observable {', '.join(unknown)} (it "
                f"declares: {', '.join(invariant.observables)}). Name only declared observables, "
                "or redefine the invariant."
            )
        return inspected

    def _check_tool_call(self, tool_call_id: int | None) -> None:
        if tool_call_id is not None and not self.store.query(
            "SELECT 1 FROM tool_calls WHERE id = ?", (tool_call_id,)
        ):
            raise LedgerError(
                f"No tool call {tool_call_id} in the workspace; pass the id the store returned "
                "for the call that produced this result, or None."
            )

    def _notify(self, kind: str, payload: dict[str, Any]) -> None:
        # The write is already done: a failing listener must not make it look failed.
        if self._on_change is None:
            return
        try:
            self._on_change(kind, payload)
        except Exception:
            logger.exception("Ledger change listener failed on %s", kind)


def _repeats(
    latest: Invariant,
    spec_sha256: str,
    kind: InvariantKind,
    required: bool,
    observables: list[str],
    scenarios: list[str],
) -> bool:
    """Whether a redefinition only repeats the latest version (order of lists included)."""
    return (
        latest.spec_sha256 == spec_sha256
        and latest.kind is kind
        and latest.required == bool(required)
        and latest.observables == observables
        and latest.scenarios == scenarios
    )
