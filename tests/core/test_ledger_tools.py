"""The ledger through the registry, as an agent or the GUI reaches it."""

from __future__ import annotations

from workbench.core.context import AppContext


def test_list_readiness_and_explicit_submission(context: AppContext) -> None:
    ledger = context.ledger
    ledger.define_invariant(
        "beam-1",
        "volume-fraction",
        "material use within 1% of target",
        kind="constraint",
        observables=["volfrac"],
    )
    candidate = ledger.propose("beam-1", "beams2d.design", {"design_sha": "ab" * 32})
    listed = context.registry.call("list_candidates", {}, caller="agent")
    [summary] = listed.result["candidates"]
    assert summary["ready"] is False and summary["blocking"] == ["volume-fraction"]

    refused = context.registry.call(
        "submit_candidate", {"candidate": candidate.id[:8]}, caller="agent"
    )
    assert refused.error is not None and "volume-fraction" in refused.error.message

    ledger.record_evidence(
        candidate=candidate,
        invariant="volume-fraction",
        adjudication="supported",
        measurements={"volfrac": 0.401},
    )
    ready = context.registry.call(
        "candidate_readiness", {"candidate": candidate.id}, caller="agent"
    )
    assert ready.result["ready"] is True
    submitted = context.registry.call(
        "submit_candidate", {"candidate": candidate.id, "note": "final"}, caller="agent"
    )
    assert submitted.ok and submitted.result["candidate_id"] == candidate.id
    assert submitted.result["override"] is False
    assert [s.candidate_id for s in ledger.submissions("beam-1")] == [candidate.id]
    short = context.registry.call("submit_candidate", {"candidate": "abc"}, caller="agent")
    assert short.error is not None and short.error.problems[0].field == "candidate"
