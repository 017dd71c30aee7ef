"""The status rule: how evidence bound to one candidate decides an invariant's status for it.

Only evidence that names the candidate counts; evidence of any other candidate (an ancestor, a
sibling) never does, so a new candidate starts with every invariant open while its ancestors keep
their statuses and their evidence.

Evidence also counts only when it was adjudicated against the invariant's current spec
(same proposition, observables, scenarios and condition; see `Invariant`).

Each declared scenario is split into cells, one per declared observable (a single cell when the
invariant declares no observables). An evidence record fills the cells of its scenario and of the
observables it inspected (all declared observables when it named none).

1. Cell: the adjudication of the **latest** evidence for that cell (highest record id, i.e. most
   recently recorded) decides it: supported, violated or inconclusive. An empty cell is open.
   So "violated, then supported after a re-run" reads supported, and "supported, then violated"
   reads violated; both records stay in the history.
2. Scenario and invariant: the worst of their parts, in the order
   violated > inconclusive > open > supported. Hence:
   - violated: some scenario's latest evidence (for some observable) is violated;
   - inconclusive: none violated, but some latest evidence is inconclusive;
   - open: none violated or inconclusive, but some scenario (or observable in it) has no evidence;
   - supported: every scenario, and every declared observable in it, has latest evidence
     supported for this candidate (covered and supported, as in Pufibara's readiness rule).
"""

from __future__ import annotations

from collections.abc import Iterable

from workbench.core.ledger.models import Evidence, Invariant, InvariantStatus, Status

# Worst first: the first of these present among the parts is the status of the whole.
_PRECEDENCE = (Status.VIOLATED, Status.INCONCLUSIVE, Status.OPEN, Status.SUPPORTED)

# The single cell of a scenario whose invariant declares no observables.
_WHOLE_SCENARIO = ""


def worst(statuses: Iterable[Status]) -> Status:
    """Combine part statuses; nothing at all to combine means nothing is known yet: open."""
    present = set(statuses)
    return next((status for status in _PRECEDENCE if status in present), Status.OPEN)


def counts_for(evidence: Evidence, invariant: Invariant, candidate_id: str) -> bool:
    return (
        evidence.candidate_id == candidate_id
        and evidence.subject == invariant.subject
        and evidence.invariant_name == invariant.name
        and evidence.invariant_spec_sha256 == invariant.spec_sha256
        and evidence.scenario in invariant.scenarios
    )


def invariant_status(
    invariant: Invariant, candidate_id: str, evidence: Iterable[Evidence]
) -> InvariantStatus:
    """The status of `invariant` for `candidate_id`, from any evidence (irrelevant ones ignored)."""
    observables = invariant.observables or [_WHOLE_SCENARIO]
    latest: dict[tuple[str, str], Evidence] = {}
    relevant = (e for e in evidence if counts_for(e, invariant, candidate_id))
    for record in sorted(relevant, key=lambda e: e.id):
        inspected = record.observables if invariant.observables else [_WHOLE_SCENARIO]
        for observable in inspected or observables:
            if observable in observables:
                latest[(record.scenario, observable)] = record

    scenario_status: dict[str, Status] = {}
    missing_scenarios: list[str] = []
    missing_observables: dict[str, list[str]] = {}
    for scenario in invariant.scenarios:
        cells = [latest.get((scenario, observable)) for observable in observables]
        scenario_status[scenario] = worst(
            Status.OPEN if cell is None else Status(cell.adjudication.value) for cell in cells
        )
        uncovered = [o for o, cell in zip(observables, cells, strict=True) if cell is None]
        if uncovered:
            missing_scenarios.append(scenario)
            if invariant.observables:
                missing_observables[scenario] = uncovered

    return InvariantStatus(
        invariant_id=invariant.id,
        invariant_name=invariant.name,
        required=invariant.required,
        status=worst(scenario_status.values()),
        scenario_status=scenario_status,
        missing_scenarios=missing_scenarios,
        missing_observables=missing_observables,
        deciding_evidence=sorted({record.id for record in latest.values()}),
    )
