"""The engineering ledger on a real SQLite workspace: identity, candidate-bound status, readiness,
frozen submission and the append-only audit history."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workbench.core.ledger import (
    Adjudication,
    Candidate,
    Evidence,
    Invariant,
    InvariantKind,
    Ledger,
    LedgerError,
    Status,
    invariant_status,
)
from workbench.core.store import Store

SUBJECT = "beam-task-1"
KIND = "beams2d.design"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "workspace")
    yield opened
    opened.close()


@pytest.fixture
def ledger(store: Store) -> Ledger:
    return Ledger(store)


def define_volume_fraction(ledger: Ledger, **overrides: Any) -> None:
    arguments: dict[str, Any] = {
        "kind": "constraint",
        "observables": ["volume_fraction"],
        "condition": {"type": "bound", "max": 0.36},
    }
    arguments.update(overrides)
    ledger.define_invariant(
        SUBJECT, "volume-fraction", "the design uses at most 36% material", **arguments
    )


def first_design(ledger: Ledger) -> Candidate:
    return ledger.propose(SUBJECT, KIND, {"volfrac": 0.35, "density": "sha256:aa"})


def support(ledger: Ledger, candidate: Candidate, invariant: str, **extra: Any) -> None:
    ledger.record_evidence(
        candidate=candidate, invariant=invariant, adjudication="supported", **extra
    )


# 1 ---------------------------------------------------------------------------------------------
def test_evidence_for_a_candidate_supports_its_invariant(ledger: Ledger) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)
    assert ledger.status(candidate=c1, invariant="volume-fraction").status is Status.OPEN

    support(ledger, c1, "volume-fraction", measurements={"volume_fraction": 0.35})

    status = ledger.status(candidate=c1, invariant="volume-fraction")
    assert status.status is Status.SUPPORTED
    assert status.missing_scenarios == []
    assert status.deciding_evidence == [ledger.history(c1)[0].id]


# 2 ---------------------------------------------------------------------------------------------
def test_a_new_candidate_reopens_what_its_parent_had_supported(ledger: Ledger) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)
    support(ledger, c1, "volume-fraction", measurements={"volume_fraction": 0.35})

    c2 = ledger.propose(SUBJECT, KIND, {"volfrac": 0.30, "density": "sha256:bb"}, parent=c1)

    assert c2.id != c1.id
    reopened = ledger.status(candidate=c2, invariant="volume-fraction")
    assert reopened.status is Status.OPEN
    assert reopened.missing_scenarios == ["default"]
    assert ledger.readiness(c2).ready is False
    assert ledger.history(c2) == []
    # c1 keeps its status and its evidence
    assert ledger.status(candidate=c1, invariant="volume-fraction").status is Status.SUPPORTED
    assert [e.candidate_id for e in ledger.history(c1)] == [c1.id]
    assert [e.candidate_id for e in ledger.evidence(invariant="volume-fraction")] == [c1.id]
    # the transition records where c2 came from and why
    last = ledger.transitions(SUBJECT)[-1]
    assert (last.source_id, last.target_id, last.action) == (c1.id, c2.id, "revise")
    assert ledger.current(SUBJECT) == c2


def test_evidence_of_another_candidate_never_counts() -> None:
    invariant = Invariant(
        id=1,
        subject=SUBJECT,
        name="vf",
        version=1,
        proposition="p",
        kind=InvariantKind.CONSTRAINT,
        required=True,
        observables=[],
        scenarios=["default"],
        condition={},
        spec_sha256="spec",
        created=0.0,
    )
    foreign = Evidence(
        id=1,
        subject=SUBJECT,
        invariant_id=1,
        invariant_name="vf",
        invariant_spec_sha256="spec",
        candidate_id="other",
        scenario="default",
        observables=[],
        measurements={},
        adjudication=Adjudication.SUPPORTED,
        note="",
        tool_call_id=None,
        created=0.0,
    )
    assert invariant_status(invariant, "mine", [foreign]).status is Status.OPEN
    assert invariant_status(invariant, "other", [foreign]).status is Status.SUPPORTED


# 3 ---------------------------------------------------------------------------------------------
def test_readiness_needs_every_required_invariant_supported_in_every_scenario(
    ledger: Ledger,
) -> None:
    ledger.define_invariant(
        SUBJECT,
        "settles",
        "the tip deflection settles within 2%",
        kind="behavioural",
        observables=["tip_deflection"],
        scenarios=["static", "impulse"],
        condition={"type": "band", "tolerance": 0.02},
    )
    define_volume_fraction(ledger)
    ledger.define_invariant(SUBJECT, "pretty", "looks nice", kind="constraint", required=False)
    c1 = first_design(ledger)

    def blocking() -> dict[str, Status]:
        report = ledger.readiness(c1)
        assert report.ready is (not report.blocking)
        return {s.invariant_name: s.status for s in report.blocking}

    # everything open
    assert blocking() == {"settles": Status.OPEN, "volume-fraction": Status.OPEN}

    # one scenario supported, the other missing: still open, and the report says which one
    support(ledger, c1, "settles", scenario="static")
    report = ledger.readiness(c1)
    settles = next(s for s in report.invariants if s.invariant_name == "settles")
    assert settles.status is Status.OPEN
    assert settles.missing_scenarios == ["impulse"]
    assert settles.missing_observables == {"impulse": ["tip_deflection"]}

    # the missing scenario inconclusive: inconclusive blocks
    ledger.record_evidence(
        candidate=c1, invariant="settles", scenario="impulse", adjudication="inconclusive"
    )
    assert blocking()["settles"] is Status.INCONCLUSIVE

    # violated blocks
    ledger.record_evidence(
        candidate=c1, invariant="settles", scenario="impulse", adjudication="violated"
    )
    assert blocking()["settles"] is Status.VIOLATED

    # all required supported; the non-required one stays open and does not block
    support(ledger, c1, "settles", scenario="impulse")
    support(ledger, c1, "volume-fraction")
    report = ledger.readiness(c1)
    assert report.ready is True
    assert report.blocking == []
    optional = next(s for s in report.invariants if s.invariant_name == "pretty")
    assert optional.status is Status.OPEN


def test_a_violated_non_required_invariant_does_not_block(ledger: Ledger) -> None:
    ledger.define_invariant(SUBJECT, "pretty", "looks nice", kind="constraint", required=False)
    c1 = first_design(ledger)
    ledger.record_evidence(candidate=c1, invariant="pretty", adjudication="violated")
    assert ledger.readiness(c1).ready is True


def test_every_declared_observable_must_be_covered(ledger: Ledger) -> None:
    ledger.define_invariant(
        SUBJECT,
        "energy",
        "energy is conserved",
        kind="physical",
        observables=["kinetic", "potential"],
    )
    c1 = first_design(ledger)
    support(ledger, c1, "energy", observables=["kinetic"])
    status = ledger.status(candidate=c1, invariant="energy")
    assert status.status is Status.OPEN
    assert status.missing_observables == {"default": ["potential"]}

    support(ledger, c1, "energy", observables=["potential"])
    assert ledger.status(candidate=c1, invariant="energy").status is Status.SUPPORTED

    with pytest.raises(LedgerError, match="no observable momentum"):
        support(ledger, c1, "energy", observables=["momentum"])


# 4 ---------------------------------------------------------------------------------------------
def test_submission_is_refused_until_ready_and_names_what_blocks(ledger: Ledger) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)

    with pytest.raises(LedgerError, match="volume-fraction") as refused:
        ledger.submit(c1)
    assert "override=True" in str(refused.value)
    assert ledger.submissions() == []

    ledger.record_evidence(candidate=c1, invariant="volume-fraction", adjudication="violated")
    with pytest.raises(LedgerError, match="'volume-fraction' is violated"):
        ledger.submit(c1)
    assert ledger.submissions() == []


def test_override_submits_anyway_and_is_recorded(ledger: Ledger) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)

    submission = ledger.submit(c1, note="deadline", override=True)

    assert submission.override is True
    assert submission.readiness.ready is False
    assert submission.note == "deadline"
    assert ledger.submissions(SUBJECT) == [submission]


def test_a_ready_candidate_submits_with_its_content_frozen(ledger: Ledger, store: Store) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)
    support(ledger, c1, "volume-fraction")

    submission = ledger.submit(c1, override=True)  # override not needed: recorded as False

    assert submission.override is False
    assert submission.readiness.ready is True
    assert submission.candidate_id == c1.id
    assert submission.content == {"volfrac": 0.35, "density": "sha256:aa"}
    # later work on the lineage does not touch what was submitted
    ledger.propose(SUBJECT, KIND, {"volfrac": 0.2}, parent=c1)
    assert ledger.submissions(SUBJECT)[0].content == submission.content
    assert ledger.submissions("another-task") == []


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE ledger_submissions SET content = '{}'",
        "UPDATE ledger_submissions SET override = 0",
        "DELETE FROM ledger_submissions",
        "DELETE FROM ledger_evidence",
        "UPDATE ledger_evidence SET adjudication = 'supported'",
        "DELETE FROM ledger_candidates",
        "UPDATE ledger_candidates SET content = '{}'",
        "DELETE FROM ledger_transitions",
        "DELETE FROM ledger_invariants",
    ],
)
def test_the_ledger_tables_are_append_only(ledger: Ledger, store: Store, statement: str) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)
    ledger.record_evidence(candidate=c1, invariant="volume-fraction", adjudication="violated")
    ledger.submit(c1, override=True)
    before = (ledger.submissions(), ledger.history(c1), ledger.candidates(), ledger.transitions())

    with pytest.raises(sqlite3.IntegrityError, match="append-only"), store.transaction() as db:
        db.execute(statement)

    after = (ledger.submissions(), ledger.history(c1), ledger.candidates(), ledger.transitions())
    assert after == before


# 5 ---------------------------------------------------------------------------------------------
def test_candidates_are_content_addressed(ledger: Ledger) -> None:
    c1 = ledger.propose(SUBJECT, KIND, {"a": 1, "b": [1, 2]}, label="first")
    again = ledger.propose(SUBJECT, KIND, {"b": [1, 2], "a": 1}, label="ignored")
    different = ledger.propose(SUBJECT, KIND, {"a": 2, "b": [1, 2]})
    other_kind = ledger.propose(SUBJECT, "modelica.package", {"a": 1, "b": [1, 2]})

    assert again == c1
    assert again.label == "first"
    assert len({c1.id, different.id, other_kind.id}) == 3
    assert len(c1.id) == 64
    assert [c.id for c in ledger.candidates(SUBJECT)] == [c1.id, different.id, other_kind.id]
    assert ledger.candidate(c1.id[:10]) == c1
    # proposing the same thing twice in a row is one transition, not two
    assert len(ledger.transitions(SUBJECT)) == 3


def test_content_that_is_not_plain_json_is_refused(ledger: Ledger) -> None:
    with pytest.raises(LedgerError, match="not plain JSON"):
        ledger.propose(SUBJECT, KIND, {"path": Path("/tmp/x")})
    with pytest.raises(LedgerError, match="not plain JSON"):
        ledger.propose(SUBJECT, KIND, {"volfrac": float("nan")})
    assert ledger.candidates() == []


def test_evidence_must_name_a_known_candidate_invariant_and_scenario(ledger: Ledger) -> None:
    define_volume_fraction(ledger, scenarios=["load-a", "load-b"])
    c1 = first_design(ledger)

    with pytest.raises(LedgerError, match="No candidate 'deadbeef'"):
        support(ledger, "deadbeef", "volume-fraction", scenario="load-a")  # type: ignore[arg-type]
    with pytest.raises(LedgerError, match=r"No invariant 'compliance'.*'volume-fraction'"):
        support(ledger, c1, "compliance", scenario="load-a")
    with pytest.raises(LedgerError, match=r"no scenario 'load-c'.*load-a, load-b"):
        support(ledger, c1, "volume-fraction", scenario="load-c")
    with pytest.raises(LedgerError, match="several scenarios"):
        support(ledger, c1, "volume-fraction")
    with pytest.raises(LedgerError, match="adjudication must be one of"):
        ledger.record_evidence(
            candidate=c1, invariant="volume-fraction", scenario="load-a", adjudication="passed"
        )
    with pytest.raises(LedgerError, match="No tool call 99"):
        support(ledger, c1, "volume-fraction", scenario="load-a", tool_call_id=99)
    assert ledger.evidence() == []


def test_evidence_and_invariant_must_share_the_candidates_subject(ledger: Ledger) -> None:
    ledger.define_invariant("other-task", "vf", "p", kind="constraint")
    c1 = first_design(ledger)
    with pytest.raises(LedgerError, match="No invariant 'vf' for subject 'beam-task-1'"):
        support(ledger, c1, "vf")
    foreign = ledger.invariants("other-task")[0]
    with pytest.raises(LedgerError, match="same subject"):
        support(ledger, c1, foreign)  # type: ignore[arg-type]
    with pytest.raises(LedgerError, match="belongs to subject 'beam-task-1'"):
        ledger.propose("other-task", KIND, {"x": 1}, parent=c1)


def test_evidence_links_to_the_tool_call_that_produced_it(ledger: Ledger, store: Store) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)
    call = store.begin_tool_call(tool="beams2d.simulate", caller="test", arguments={})
    support(ledger, c1, "volume-fraction", tool_call_id=call, note="from the solver")
    (record,) = ledger.history(c1)
    assert (record.tool_call_id, record.note) == (call, "from the solver")
    assert record.observables == ["volume_fraction"]  # defaults to all declared


# 6 ---------------------------------------------------------------------------------------------
def test_the_latest_adjudication_per_scenario_wins_and_history_keeps_both(
    ledger: Ledger,
) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)

    ledger.record_evidence(
        candidate=c1,
        invariant="volume-fraction",
        adjudication="violated",
        measurements={"volume_fraction": 0.4},
    )
    assert ledger.status(candidate=c1, invariant="volume-fraction").status is Status.VIOLATED
    support(ledger, c1, "volume-fraction", measurements={"volume_fraction": 0.35})
    assert ledger.status(candidate=c1, invariant="volume-fraction").status is Status.SUPPORTED

    assert [e.adjudication for e in ledger.history(c1)] == [
        Adjudication.VIOLATED,
        Adjudication.SUPPORTED,
    ]

    # and the other way round: a later violation overrides an earlier support
    ledger.record_evidence(candidate=c1, invariant="volume-fraction", adjudication="violated")
    assert ledger.status(candidate=c1, invariant="volume-fraction").status is Status.VIOLATED


@pytest.mark.parametrize(
    ("load_a", "load_b", "expected"),
    [
        ("violated", "inconclusive", Status.VIOLATED),
        ("inconclusive", "violated", Status.VIOLATED),
        ("violated", None, Status.VIOLATED),
        ("inconclusive", None, Status.INCONCLUSIVE),
        ("supported", None, Status.OPEN),
        ("supported", "inconclusive", Status.INCONCLUSIVE),
        ("supported", "supported", Status.SUPPORTED),
    ],
)
def test_the_worst_scenario_decides_the_invariant(
    ledger: Ledger, load_a: str, load_b: str | None, expected: Status
) -> None:
    define_volume_fraction(ledger, scenarios=["load-a", "load-b"])
    c1 = first_design(ledger)
    for scenario, adjudication in (("load-a", load_a), ("load-b", load_b)):
        if adjudication is not None:
            ledger.record_evidence(
                candidate=c1,
                invariant="volume-fraction",
                scenario=scenario,
                adjudication=adjudication,
            )
    assert ledger.status(candidate=c1, invariant="volume-fraction").status is expected


# invariants ------------------------------------------------------------------------------------
def test_redefining_an_invariant_reopens_it_only_when_its_spec_changes(ledger: Ledger) -> None:
    define_volume_fraction(ledger)
    c1 = first_design(ledger)
    support(ledger, c1, "volume-fraction")

    define_volume_fraction(ledger)  # same definition: no new version
    assert len(ledger.invariant_versions(SUBJECT, "volume-fraction")) == 1

    define_volume_fraction(ledger, required=False)  # not the spec: evidence still counts
    assert ledger.invariant(SUBJECT, "volume-fraction").version == 2
    assert ledger.status(candidate=c1, invariant="volume-fraction").status is Status.SUPPORTED

    define_volume_fraction(ledger, condition={"type": "bound", "max": 0.30})  # new condition
    assert ledger.invariant(SUBJECT, "volume-fraction").version == 3
    assert ledger.status(candidate=c1, invariant="volume-fraction").status is Status.OPEN
    assert len(ledger.evidence(invariant="volume-fraction")) == 1  # history kept


def test_an_invariant_needs_a_scenario_and_a_known_kind(ledger: Ledger) -> None:
    with pytest.raises(LedgerError, match="at least one scenario"):
        ledger.define_invariant(SUBJECT, "x", "p", kind="physical", scenarios=[])
    with pytest.raises(LedgerError, match="physical, constraint, behavioural"):
        ledger.define_invariant(SUBJECT, "x", "p", kind="aesthetic")
    assert ledger.invariants(SUBJECT) == []


# overview, persistence, notifications ----------------------------------------------------------
def test_status_table_and_subjects_for_the_ledger_view(ledger: Ledger) -> None:
    define_volume_fraction(ledger)
    ledger.define_invariant(SUBJECT, "fits-bed", "fits the printer bed", kind="constraint")
    c1 = first_design(ledger)
    c2 = ledger.propose(SUBJECT, KIND, {"volfrac": 0.3}, parent=c1)
    support(ledger, c1, "volume-fraction")
    ledger.record_evidence(candidate=c2, invariant="fits-bed", adjudication="violated")
    ledger.propose("printer-job-7", "print.job", {"gcode": "sha256:cc"})

    table = ledger.status_table(SUBJECT)

    assert table.candidate_ids == [c1.id, c2.id]
    assert table.invariant_names == ["volume-fraction", "fits-bed"]
    assert table.status(c1.id, "volume-fraction") is Status.SUPPORTED
    assert table.status(c1.id, "fits-bed") is Status.OPEN
    assert table.status(c2.id, "volume-fraction") is Status.OPEN
    assert table.status(c2.id, "fits-bed") is Status.VIOLATED
    assert ledger.subjects() == [SUBJECT, "printer-job-7"]


def test_everything_survives_closing_and_reopening_the_store(tmp_path: Path) -> None:
    store = Store(tmp_path / "ws")
    ledger = Ledger(store)
    define_volume_fraction(ledger)
    c1 = first_design(ledger)
    support(ledger, c1, "volume-fraction")
    submission = ledger.submit(c1)
    c2 = ledger.propose(SUBJECT, KIND, {"volfrac": 0.3}, parent=c1)
    store.close()

    reopened = Ledger(Store(tmp_path / "ws"))
    assert reopened.candidates(SUBJECT) == [c1, c2]
    assert reopened.status(candidate=c1, invariant="volume-fraction").status is Status.SUPPORTED
    assert reopened.status(candidate=c2, invariant="volume-fraction").status is Status.OPEN
    assert reopened.submissions() == [submission]
    assert reopened.current(SUBJECT) == c2
    reopened.store.close()


def test_on_change_is_told_about_each_write(store: Store) -> None:
    changes: list[tuple[str, dict[str, Any]]] = []
    ledger = Ledger(store, on_change=lambda kind, payload: changes.append((kind, payload)))
    define_volume_fraction(ledger)
    c1 = first_design(ledger)
    first_design(ledger)  # nothing new: no notification
    support(ledger, c1, "volume-fraction")
    ledger.submit(c1)

    assert [kind for kind, _ in changes] == [
        "invariant.defined",
        "candidate.proposed",
        "evidence.recorded",
        "candidate.submitted",
    ]
    assert changes[2][1]["status"] == "supported"
    assert changes[3][1]["candidate_id"] == c1.id


def test_a_failing_listener_does_not_undo_the_write(store: Store) -> None:
    def broken(kind: str, payload: dict[str, Any]) -> None:
        raise RuntimeError("listener bug")

    ledger = Ledger(store, on_change=broken)
    c1 = first_design(ledger)
    assert ledger.candidates() == [c1]
