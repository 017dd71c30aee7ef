"""Workflow profiles (seed 003): repair, generation, tuning.

Each defines the actions permitted, what a candidate is, and the submission contract. The harness
enforces all three; the agent's prompt explains them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ProfileName = Literal["repair", "generation", "tuning"]

READS = frozenset({"read_file", "check_model", "simulate", "evaluate_observable", "ledger_status"})
LEDGER = frozenset({"add_invariant", "record_evidence", "submit"})


@dataclass(frozen=True)
class Profile:
    name: ProfileName
    permitted: frozenset[str]
    candidate_kind: str
    candidate: str  # what a candidate is, in words
    submission: str  # the submission contract, in words


PROFILES: dict[str, Profile] = {
    "repair": Profile(
        "repair",
        READS | LEDGER | {"write_file"},
        "modelica.package",
        "the complete set of .mo files in the workspace (start: the faulty model)",
        "submit the repaired package; it must declare the task's model, pass check and simulate",
    ),
    "generation": Profile(
        "generation",
        READS | LEDGER | {"write_file"},
        "modelica.package",
        "the complete set of .mo files in the workspace (the workspace may start empty)",
        "submit the built package; it must declare the task's model, pass check, simulate and "
        "meet the brief's behaviour",
    ),
    "tuning": Profile(
        "tuning",
        READS | LEDGER,  # structure frozen: no write_file
        "modelica.parameters",
        "a parameter assignment (tunable parameters only, within their ranges) plus the frozen "
        "model and verification settings",
        "submit the parameter values; only tunable parameters, within ranges, targets met",
    ),
}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(
            f"No workflow profile {name!r}; choose one of {', '.join(PROFILES)}."
        ) from None
