"""The ledger status of a task run: what `ledger_status` returns and what the agent sees each turn.

Apart from the tools so that the turn loop (`turns.turn_context`) and the tools both read it
from below, and neither imports the other.
"""

from __future__ import annotations

from pydantic import BaseModel

from workbench_plugins.modelica.harness import Run


class StatusOutput(BaseModel):
    run: str
    profile: str
    state: str
    reason: str
    current_candidate: str | None
    ready: bool
    readiness: str
    invariants: dict[str, str]
    turns: int
    simulations: int
    limits: dict[str, float | None]
    text: str


def status_of(run: Run) -> StatusOutput:
    ledger = run.ledger
    current = run.candidate
    report = ledger.readiness(current) if current else None
    invariants = {s.invariant_name: s.status.value for s in (report.invariants if report else [])}
    limits = run.task.limits
    lines = [
        f"Run {run.id} ({run.profile.name}, {run.state}{': ' + run.reason if run.reason else ''})",
        f"Current candidate: {current.short_id if current else 'none'}",
        report.explain() if report else "No candidate yet.",
        *(f"- {s.describe()}" for s in (report.invariants if report else [])),
        f"Turns {run.turns}/{limits.turns}, simulations {len(run.simulations)}/"
        f"{'unlimited' if limits.simulations is None else limits.simulations}, wall time "
        f"{run.elapsed_s:.0f}/{limits.wall_time_s:g} s (+{limits.verification_grace_s:g} s for "
        "a verification started by submit)",
    ]
    return StatusOutput(
        run=run.id,
        profile=run.profile.name,
        state=run.state,
        reason=run.reason,
        current_candidate=current.id if current else None,
        ready=bool(report and report.ready),
        readiness=report.explain() if report else "no candidate",
        invariants=invariants,
        turns=run.turns,
        simulations=len(run.simulations),
        limits=limits.model_dump(),
        text="\n".join(lines),
    )
