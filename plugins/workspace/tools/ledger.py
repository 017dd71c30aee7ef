"""Tools over the engineering ledger: what is proposed, what holds, and explicit submission."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from pydantic import BaseModel, Field

from workbench.core.ledger import LedgerError, ReadinessReport, Submission
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure

P = ParamSpec("P")
R = TypeVar("R")


class CandidateRef(BaseModel):
    candidate: str = Field(..., min_length=6, description="candidate id or a unique prefix (6+)")


class SubjectQuery(BaseModel):
    subject: str | None = Field(None, description="design task; all subjects when empty")


class CandidateSummary(BaseModel):
    id: str
    subject: str
    kind: str
    label: str
    ready: bool
    blocking: list[str]


class CandidateList(BaseModel):
    candidates: list[CandidateSummary]


def _ledger_call(action: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run a ledger action; its LedgerError becomes a ToolFailure the agent can read."""
    try:
        return action(*args, **kwargs)
    except LedgerError as error:
        raise ToolFailure(str(error)) from error


def list_candidates(query: SubjectQuery, context: ToolContext) -> CandidateList:
    ledger = context.app.ledger
    summaries = []
    for candidate in _ledger_call(ledger.candidates, query.subject):
        report = ledger.readiness(candidate)
        summaries.append(
            CandidateSummary(
                id=candidate.id,
                subject=candidate.subject,
                kind=candidate.kind,
                label=candidate.label,
                ready=report.ready,
                blocking=[status.invariant_name for status in report.blocking],
            )
        )
    return CandidateList(candidates=summaries)


def candidate_readiness(ref: CandidateRef, context: ToolContext) -> ReadinessReport:
    return _ledger_call(context.app.ledger.readiness, ref.candidate)


class SubmitArgs(CandidateRef):
    note: str = Field("", description="why this candidate is the answer")
    override: bool = Field(False, description="submit although not ready (recorded as such)")


def submit_candidate(args: SubmitArgs, context: ToolContext) -> Submission:
    return _ledger_call(
        context.app.ledger.submit, args.candidate, note=args.note, override=args.override
    )


def ledger_tools() -> list[Tool]:
    return [
        Tool(
            "list_candidates",
            "Design candidates in the ledger and whether each is ready.",
            SubjectQuery,
            CandidateList,
            list_candidates,
            SideEffect.READ,
        ),
        Tool(
            "candidate_readiness",
            "Status of every invariant for one candidate.",
            CandidateRef,
            ReadinessReport,
            candidate_readiness,
            SideEffect.READ,
        ),
        Tool(
            "submit_candidate",
            "Submit a candidate explicitly; it is frozen. Refused unless ready, or overridden.",
            SubmitArgs,
            Submission,
            submit_candidate,
            SideEffect.WRITE,
        ),
    ]
