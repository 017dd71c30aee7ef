"""Events the Modelica tools and task runs publish on the app's bus (views listen to them)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from workbench.core.events import Event


class SimulationRecorded(Event):
    sim_id: str
    model: str
    ok: bool
    artifact_id: int | None = None
    candidate_id: str | None = None
    run_id: str | None = None
    scenario: str = "default"


class TaskRunStarted(Event):
    """A model began a task run (driver.background): what it works on and under which limits."""

    source: str = "modelica"
    run_id: str
    task_id: str
    mode: str  # "harness" or "plain"
    profile: str
    model: str
    limits: dict[str, Any] = Field(default_factory=dict)


class TaskRunTurn(Event):
    """One turn of a task run ended: where the run stands against its limits."""

    source: str = "modelica"
    run_id: str
    turn: int
    max_turns: int
    elapsed_s: float
    wall_time_s: float
    simulations: int
    max_simulations: int | None = None  # None: unlimited
    logical_tokens: int = 0
    state: str = "running"
    last_tool: str = ""
    last_ok: bool = True


class TaskRunFinished(Event):
    source: str = "modelica"
    run_id: str
    status: str  # "submitted", "failure_to_submit" or "error"
    reason: str = ""
    submission_path: str = ""
