"""The workspace's simulations, as the trajectories view lists them (no Qt).

Every `simulate` call keeps its trajectories as a store artifact (kind modelica.trajectories,
its meta naming the model, run, simulation id, candidate and scenario), so the simulations of
earlier sessions are there after a restart. Listing reads only the store's index; a run's
trajectories are read from its file when it is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.core.store import Artifact, Store
from workbench_plugins.modelica.backend_base import SimulationResult

TRAJECTORIES_KIND = "modelica.trajectories"


@dataclass(frozen=True)
class StoredSimulation:
    artifact_id: int
    label: str
    model: str
    run_id: str | None


def run_label(
    sim_id: str, model: str, candidate_id: str | None, scenario: str, artifact_id: int | None
) -> str:
    """How a simulation is named in the run list and the legend: its id, model, candidate,
    scenario ("sim2 SpringMassDamper [0cf54b85] (default)")."""
    name = sim_id or (f"a{artifact_id}" if artifact_id is not None else "run")
    candidate = f" [{candidate_id[:8]}]" if candidate_id else ""
    return f"{name} {model}{candidate} ({scenario or 'default'})"


def describe(artifact: Artifact) -> StoredSimulation:
    meta: dict[str, Any] = artifact.meta
    label = run_label(
        str(meta.get("sim_id") or ""),
        str(meta.get("model") or artifact.name),
        meta.get("candidate_id"),
        str(meta.get("scenario") or "default"),
        artifact.id,
    )
    return StoredSimulation(artifact.id, label, str(meta.get("model") or ""), meta.get("run"))


def stored_simulations(store: Store) -> list[StoredSimulation]:
    """Every successful simulation of the workspace, oldest first."""
    return [
        describe(artifact)
        for artifact in store.artifacts(TRAJECTORIES_KIND)
        if artifact.meta.get("ok", True)
    ]


def read_trajectories(store: Store, artifact_id: int) -> SimulationResult:
    """One simulation's trajectories (file I/O: a few hundred kB of JSON)."""
    artifact = store.artifact(artifact_id)
    return SimulationResult.model_validate_json(artifact.path.read_text(encoding="utf-8"))
