"""The tools' results: pydantic models, with the reference implementation's keys."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class _Result(BaseModel):
    # The reference adds per-objective keys (initial_c, final_c, c_improvement...).
    model_config = ConfigDict(extra="allow")

    success: bool = True
    message: str = ""


class ProblemInfo(_Result):
    problem_type: str
    design_space: dict[str, Any]
    objectives: list[list[str]]
    conditions: dict[str, Any]
    conditions_keys: list[str]
    dataset_id: str
    config: dict[str, Any]


class OptimizeResult(_Result):
    problem_type: str
    design_shape: list[int]
    optimization_info: dict[str, Any]
    save_path: str | None
    design_artifact_path: str
    history_artifact_path: str
    design_sha256: str
    candidate_id: str
    subject: str
    invariants: dict[str, str]
    job_id: str
    elapsed_s: float
    config_warning: bool = False
    optimized_design: list[list[float]] | None = None


class SimulateResult(_Result):
    problem_type: str
    design_valid: bool  # no EngiBench design constraint violated (Beams2D: the volume fraction)
    constraint_violations: list[str]
    design_source: str
    design_sha256: str  # the exact field simulated: the benchmark matches it to the scored design
    material_usage: float
    design_shape: list[int]


class RenderResult(_Result):
    save_path: str
    npy_path: str
    design_shape: list[int]
    design_type: str
    design_sha256: str  # the exact field rendered: task completion checks it
    seed: int | None


class StlResult(_Result):
    stl_path: str
    num_triangles: int
    connected_design: bool
    num_components: int
    scale_xy: float
    scale_z: float
    mirrored: bool
    threshold: float
    is_watertight: bool
    is_winding_consistent: bool
    volume_mm3: float | None
    surface_area_mm2: float
    num_vertices: int
    num_faces: int
    # The reference's watertight_check_available and mesh_repaired are not reported: trimesh is
    # a hard dependency (the check always runs) and the exporter never repairs a mesh.
    design_sha256: str  # the exact field exported (before threshold and mirror)
    stl_sha256: str  # the file as written: a score resting on it checks the file still is that
    material_area_mm2: float
    corner_bridges: int
    bounds_mm: list[list[float]]
    candidate_id: str | None
    ledger_evidence: str | None


class ClarifyResult(_Result):
    question: str
