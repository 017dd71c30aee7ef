"""A followed task run as the task view shows it, folded from the bus events (no Qt here).

TaskRunStarted gives the limits, each TaskRunTurn the counters, TaskRunFinished the outcome; the
texts say each figure against its limit, the way a person reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GRACE_S = 120.0  # the paper's verification grace after the wall time, for a submit under way


@dataclass
class RunProgress:
    run_id: str
    task_id: str = ""
    mode: str = "harness"
    profile: str = ""
    model: str = ""
    max_turns: int = 100
    wall_time_s: float = 900.0
    grace_s: float = GRACE_S
    max_simulations: int | None = None  # None: no limit (repair and generation)
    turn: int = 0
    elapsed_s: float = 0.0
    simulations: int = 0
    logical_tokens: int = 0
    state: str = "starting"
    last_tool: str = ""
    last_ok: bool | None = None
    status: str = ""  # once finished: submitted | failure_to_submit | error | cancelled
    reason: str = ""
    submission_path: str = ""

    @property
    def finished(self) -> bool:
        return bool(self.status)

    def started(self, event: Any) -> None:
        limits: dict[str, Any] = dict(event.limits or {})
        self.task_id, self.mode = event.task_id, event.mode
        self.profile, self.model = event.profile, event.model
        self.max_turns = int(limits.get("turns", self.max_turns))
        self.wall_time_s = float(limits.get("wall_time_s", self.wall_time_s))
        self.grace_s = float(limits.get("verification_grace_s", self.grace_s))
        self.max_simulations = _limit(limits.get("simulations"))
        self.state = "running"

    def turned(self, event: Any) -> None:
        self.turn, self.max_turns = event.turn, event.max_turns
        self.elapsed_s, self.wall_time_s = event.elapsed_s, event.wall_time_s
        self.simulations = event.simulations
        self.max_simulations = _limit(event.max_simulations)
        self.logical_tokens = event.logical_tokens
        self.state = event.state
        self.last_tool, self.last_ok = event.last_tool, event.last_ok

    def ended(self, event: Any) -> None:
        self.status, self.reason = event.status, event.reason
        self.submission_path = event.submission_path
        self.state = "submitted" if event.status == "submitted" else "ended"

    # -- texts ----------------------------------------------------------------------------------
    def heading(self) -> str:
        kind = f"{self.profile}, " if self.profile else ""
        model = f", model {self.model}" if self.model else ""
        return f"{self.task_id or self.run_id} ({kind}{self.mode} loop{model})"

    def turns_text(self) -> str:
        return f"{self.turn} / {self.max_turns} turns"

    def time_text(self, elapsed_s: float | None = None) -> str:
        elapsed = self.elapsed_s if elapsed_s is None else elapsed_s
        return (
            f"{elapsed:.0f} s / {self.wall_time_s:g} s "
            f"(+{self.grace_s:g} s grace for a verification started by submit)"
        )

    def simulations_text(self) -> str:
        if self.max_simulations is None:
            return f"{self.simulations} simulations (no limit for {self.profile or 'this'} tasks)"
        return f"{self.simulations} / {self.max_simulations} simulations"

    def tokens_text(self) -> str:
        return f"{self.logical_tokens:,} logical tokens (input, cache and output)"

    def state_text(self) -> str:
        if self.status == "submitted":
            where = f": {self.submission_path}" if self.submission_path else ""
            return f"Submitted{where}"
        if self.status == "failure_to_submit":
            return f"Ended without a submission: {self.reason or 'no reason given'}"
        if self.status:
            return f"{self.status.replace('_', ' ').capitalize()}: {self.reason or 'no reason'}"
        if not self.last_tool:
            return f"{self.state.capitalize()}: waiting for the model's first reply"
        outcome = {True: "ok", False: "failed", None: "running"}[self.last_ok]
        return f"{self.state.capitalize()}: last tool {self.last_tool} ({outcome})"


def _limit(value: Any) -> int | None:
    return None if value is None else int(value)
