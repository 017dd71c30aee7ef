"""The engineering ledger (seed 003, generalised): candidates, transitions, invariants,
candidate-bound evidence, per-candidate status, readiness and explicit, frozen submission.

Qt-free and LangChain-free; it lives in the workspace store (tables added by migration step 2).
Plugins declare a candidate kind and the invariants they can check; see `Ledger`.
"""

from __future__ import annotations

from workbench.core.ledger.errors import LedgerError
from workbench.core.ledger.ledger import ChangeCallback, Ledger
from workbench.core.ledger.models import (
    Adjudication,
    Candidate,
    Evidence,
    Invariant,
    InvariantKind,
    InvariantStatus,
    ReadinessReport,
    Status,
    StatusTable,
    Submission,
    Transition,
)
from workbench.core.ledger.status import invariant_status

__all__ = [
    "Adjudication",
    "Candidate",
    "ChangeCallback",
    "Evidence",
    "Invariant",
    "InvariantKind",
    "InvariantStatus",
    "Ledger",
    "LedgerError",
    "ReadinessReport",
    "Status",
    "StatusTable",
    "Submission",
    "Transition",
    "invariant_status",
]
