"""Is the design on screen ready? The ledger's answer for its candidate, said beside the design.

The density view shows it under the header, so "not ready: single_component violated" is read
where the design is, not only in the Ledger. Read off the GUI thread (SQLite); Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy.typing as npt

from workbench.core.ledger import Ledger, Status

READY_STYLE = "background: #b7e4c7; color: #1f2328; padding: 3px"
NOT_READY_STYLE = "background: #f4b6b6; color: #1f2328; padding: 3px"
UNCHECKED_STYLE = "background: #e6e6e6; color: #1f2328; padding: 3px"
SAID = {
    Status.VIOLATED: "violated",
    Status.INCONCLUSIVE: "inconclusive",
    Status.OPEN: "not checked yet",
}


@dataclass(frozen=True)
class Readiness:
    text: str  # one line for the view
    detail: str  # the ledger's explanation, for the tooltip
    style: str


def design_readiness(ledger: Ledger, design: npt.NDArray) -> Readiness | None:
    """The readiness of the candidate whose density field is `design` (None: not a candidate)."""
    from workbench_plugins.topopt.candidates import candidate_for_design  # scipy, engine: late

    candidate = candidate_for_design(ledger, design)
    if candidate is None:
        return None
    report = ledger.readiness(candidate)
    if not report.invariants:  # nothing stated, nothing checked: never "ready"
        return Readiness("Nothing checked yet: no invariant is stated.", "", UNCHECKED_STYLE)
    if report.ready:
        required = ", ".join(s.invariant_name for s in report.invariants if s.required)
        return Readiness(f"Ready: {required} hold.", report.explain(), READY_STYLE)
    reasons = "; ".join(f"{s.invariant_name} {SAID[s.status]}" for s in report.blocking)
    held = [s.invariant_name for s in report.invariants if s.status is Status.SUPPORTED]
    holds = f" Holds: {', '.join(held)}." if held else ""
    return Readiness(f"Not ready: {reasons}.{holds}", report.explain(), NOT_READY_STYLE)
