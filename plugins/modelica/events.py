"""Events the Modelica tools publish on the app's bus (views listen to them)."""

from __future__ import annotations

from workbench.core.events import Event


class SimulationRecorded(Event):
    sim_id: str
    model: str
    ok: bool
    artifact_id: int | None = None
    candidate_id: str | None = None
    run_id: str | None = None
    scenario: str = "default"
