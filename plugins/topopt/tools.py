"""Tools with the reference implementation's names and arguments (EngiAI, spec section 1).

Designs, histories, renders and STL files are stored as artifacts; optimised designs become
ledger candidates with their mechanical invariants adjudicated as evidence.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from workbench.core.jobs import JobCancelled, JobFailed
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.topopt import candidates, designs, engine, jobs
from workbench_plugins.topopt.stl import StlExportError, StlSettings, export_stl


@contextmanager
def engine_errors() -> Iterator[None]:
    """Engine and exporter refusals become failures the agent can act on."""
    try:
        yield
    except (engine.EngineError, StlExportError) as error:
        raise ToolFailure(str(error)) from None


# -- arguments ----------------------------------------------------------------------------------
class _Args(BaseModel):
    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")


class ProblemArgs(_Args):
    problem_type: str = Field("beams2d", description="beams2d or photonics2d")

    @field_validator("problem_type")
    @classmethod
    def _known_problem(cls, value: str) -> str:
        return engine.check_problem_type(value)


class ConfiguredArgs(ProblemArgs):
    problem_config: dict[str, Any] | None = Field(
        None,
        description="beams2d: volfrac, rmin, forcedist (max_iter ...); "
        "photonics2d: lambda1, lambda2, blur_radius, num_optimization_steps (num_elems_x/y)",
    )

    @field_validator("problem_config")
    @classmethod
    def _valid_config(cls, value: dict | None, info: ValidationInfo) -> dict | None:
        problem_type = info.data.get("problem_type")
        if problem_type is not None:  # an unknown problem is reported on its own field
            engine.parse_config(problem_type, value)
        return value

    def config(self) -> engine.ProblemConfig:
        return engine.parse_config(self.problem_type, self.problem_config)


class CreateArgs(ProblemArgs):
    seed: int = Field(0, ge=0)


class OptimizeArgs(ConfiguredArgs):
    seed: int = Field(0, ge=0)
    save_result: bool = Field(True, description="also write the design .npy to the outputs")
    include_design: bool = Field(False, description="return the full density field as a list")


class SimulateArgs(ConfiguredArgs):
    design_description: str = Field(
        "random design", description="'last'/'optimized', 'initial', 'random', or an .npy path"
    )
    seed: int = Field(0, ge=0)


class RenderArgs(SimulateArgs):
    save_path: str = Field("design.png", description="PNG file; relative to the outputs folder")
    seed: int | None = Field(None, ge=0)  # type: ignore[assignment]


class StlArgs(ProblemArgs):
    npy_file_path: str = Field(..., min_length=1, description=".npy design path (or 'last')")
    stl_file_path: str | None = Field(
        None,
        description="output .stl (a file name: in the workspace outputs; a path outside the "
        "workspace needs a person's confirmation)",
    )
    scale_xy: float = Field(1.0, gt=0, le=1e4, description="mm per pixel")
    scale_z: float = Field(10.0, gt=0, le=1e4, description="extrusion height in mm")
    mirror_y: bool = Field(False, description="mirror about the left edge: [fliplr(d) | d]")
    threshold: float = Field(0.5, gt=0, le=1, description="material where density >= threshold")


class ClarifyArgs(_Args):
    clarification_request: str = Field(..., min_length=1)


# -- results ------------------------------------------------------------------------------------
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
    material_area_mm2: float
    corner_bridges: int
    bounds_mm: list[list[float]]
    candidate_id: str | None
    ledger_evidence: str | None


class ClarifyResult(_Result):
    question: str


# -- tools --------------------------------------------------------------------------------------
def _problem_info(problem_type: str, message: str, **extra: Any) -> ProblemInfo:
    with engine_errors():
        info = engine.describe(problem_type)
    return ProblemInfo(message=message, **info, **extra)


def create_problem(args: CreateArgs, context: ToolContext) -> ProblemInfo:
    return _problem_info(
        args.problem_type, f"Created {args.problem_type} (seed {args.seed}).", seed=args.seed
    )


def get_problem_details(args: ProblemArgs, context: ToolContext) -> ProblemInfo:
    return _problem_info(args.problem_type, f"Details of {args.problem_type}.")


def _improvement(name: str, problem_type: str, initial: float, final: float) -> float:
    gain = (initial - final) if problem_type == "beams2d" else (final - initial)
    return float(gain / abs(initial) * 100.0) if initial else 0.0


def _run_job(context: ToolContext, args: OptimizeArgs, config: engine.ProblemConfig) -> Any:
    job = context.app.jobs.submit(
        jobs.run_optimization,
        args.problem_type,
        config.model_dump(),
        args.seed,
        title=f"optimize {args.problem_type}",
    )
    try:
        return job.id, job.result()
    except JobCancelled:
        raise ToolFailure(
            f"The {args.problem_type} optimisation was cancelled; no design was saved.",
            hint="Call optimize_design again to rerun it.",
        ) from None
    except JobFailed as failure:
        raise ToolFailure(f"The {args.problem_type} optimisation failed: {failure}") from None


def optimize_design(args: OptimizeArgs, context: ToolContext) -> OptimizeResult:
    config = args.config()
    started = time.perf_counter()
    job_id, outcome = _run_job(context, args, config)
    elapsed = time.perf_counter() - started
    design = np.asarray(outcome["design"])
    name = f"{args.problem_type}_{engine.config_sha256(args.problem_type, config)[:8]}"
    save_path = (
        designs.output_path(context, None, f"{name}_seed{args.seed}_optimized.npy")
        if args.save_result
        else None
    )
    common = {"problem_type": args.problem_type, "config": config, "seed": args.seed}
    designs.store_design(
        context, np.asarray(outcome["initial_design"]), role="initial", save_path=None, **common
    )
    stored = designs.store_design(context, design, role="optimized", save_path=save_path, **common)
    history = outcome["objective_history"]
    history_artifact = _store_history(context, name, history)
    candidate, checks = candidates.propose_design(
        context.app.ledger,
        problem_type=args.problem_type,
        config=config,
        seed=args.seed,
        design=design,
        artifact_sha256=stored.sha256,
        tool_call_id=context.call_id,
    )
    per_objective: dict[str, float] = {}
    for key, initial in outcome["initial_objectives"].items():
        final = outcome["final_objectives"][key]
        per_objective[f"initial_{key}"] = initial
        per_objective[f"final_{key}"] = final
        per_objective[f"{key}_improvement"] = _improvement(key, args.problem_type, initial, final)
    summary = ", ".join(f"{k}={v:.4g}" for k, v in per_objective.items())
    return OptimizeResult(
        **per_objective,
        message=f"Optimised {args.problem_type} in {len(history)} iterations: {summary}.",
        problem_type=args.problem_type,
        design_shape=list(design.shape),
        optimization_info={"steps": len(history), "obj_values": history},
        save_path=str(save_path) if save_path else None,
        design_artifact_path=str(stored.path),
        history_artifact_path=str(history_artifact.path),
        design_sha256=engine.design_sha256(design),
        candidate_id=candidate.id,
        subject=candidate.subject,
        invariants={check.invariant: check.adjudication.value for check in checks},
        job_id=job_id,
        elapsed_s=round(elapsed, 3),
        config_warning=not args.problem_config,
        optimized_design=design.tolist() if args.include_design else None,
    )


def _store_history(context: ToolContext, name: str, history: list[float]) -> Any:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"{name}_history.json"
        path.write_text(json.dumps({"obj_values": history}))
        return context.add_artifact(path, kind="topopt.history")


def _resolve(args: SimulateArgs, context: ToolContext, seed: int) -> tuple[Any, Any]:
    with engine_errors():
        given = designs.resolve(
            context, args.design_description, args.problem_type, args.config(), seed
        )
        config = designs.config_of(context, given, args.problem_type, args.problem_config)
        given.design = engine.check_design(given.design, config)
    return given, config


def simulate_design(args: SimulateArgs, context: ToolContext) -> SimulateResult:
    given, config = _resolve(args, context, args.seed)
    with engine_errors():
        objectives = engine.simulate(args.problem_type, config, given.design, args.seed)
        violations = engine.design_violations(args.problem_type, config, given.design)
    values = ", ".join(f"{k}={v:.6g}" for k, v in objectives.items())
    validity = f" It violates: {'; '.join(violations)}" if violations else ""
    return SimulateResult(
        **objectives,
        message=f"Simulated the {given.source} {args.problem_type} design: {values}.{validity}",
        problem_type=args.problem_type,
        design_valid=not violations,
        constraint_violations=violations,
        design_source=given.path or given.source,
        design_sha256=engine.design_sha256(given.design),
        material_usage=float(given.design.mean()),
        design_shape=list(given.design.shape),
    )


def _design_path(args: SimulateArgs, context: ToolContext) -> Path | None:
    """The .npy a design description names, if it names a file (the registry's `files`)."""
    return designs.design_file(context, args.design_description)


def _render_paths(args: RenderArgs, context: ToolContext) -> tuple[Path, Path]:
    """The design read, and the PNG and .npy written beside it (the registry's `files`)."""
    _design_path(args, context)
    png = designs.output_path(context, args.save_path, "design.png")
    if png.suffix.lower() != ".png":
        png = designs.output_path(context, str(png.with_suffix(".png")), "design.png")
    return png, designs.output_path(context, str(png.with_suffix(".npy")), "design.npy")


def render_design(args: RenderArgs, context: ToolContext) -> RenderResult:
    seed = args.seed if args.seed is not None else 0
    png, npy = _render_paths(args, context)  # every path confined before anything is written
    given, config = _resolve(args, context, seed)
    engine.render_png(given.design, png, f"{args.problem_type}: {given.source} design")
    designs.write_npy(given.design, npy)
    context.add_artifact(png, kind="topopt.render", meta={"problem_type": args.problem_type})
    designs.store_design(
        context,
        given.design,
        problem_type=args.problem_type,
        role=f"render:{given.source}",
        config=config,
        seed=seed,
        save_path=npy,
    )
    return RenderResult(
        message=f"Rendered the {given.source} {args.problem_type} design to {png}.",
        save_path=str(png),
        npy_path=str(npy),
        design_shape=list(given.design.shape),
        design_type=given.source,
        design_sha256=engine.design_sha256(given.design),
        seed=args.seed,
    )


def _stl_paths(args: StlArgs, context: ToolContext) -> tuple[Path | None, Path]:
    """The .npy read (None for 'last' and the like) and the STL written, with the exporter's
    scratch file beside it (the registry's `files`)."""
    source = designs.design_file(context, args.npy_file_path)
    stem = Path(args.npy_file_path).stem if source else f"{args.problem_type}_design"
    stl = designs.output_path(context, args.stl_file_path, f"{stem}.stl")
    designs.output_path(context, f"{stl}.part", "")  # export_stl writes there first
    return source, stl


def convert_design_to_stl(args: StlArgs, context: ToolContext) -> StlResult:
    source = args.npy_file_path
    source_path, stl_path = _stl_paths(args, context)  # confined before anything is written
    if source_path is not None:
        design = designs.load_npy(context, str(source_path))
    else:  # 'last', 'optimized', 'initial' like the other tools
        with engine_errors():
            config = engine.parse_config(args.problem_type, None)
            resolved = designs.resolve(context, source, args.problem_type, config, 0)
        if resolved.source == "random":  # an export of a made-up design would pass unnoticed
            raise ToolFailure(
                f"{source!r} names no design to export.",
                hint="Pass the .npy path that optimize_design returned (save_path), or 'last' "
                "for the newest optimized design.",
            )
        design = resolved.design
    settings = StlSettings(args.threshold, args.scale_xy, args.scale_z, args.mirror_y)
    with engine_errors():
        report = export_stl(design, stl_path, settings)
    candidate = candidates.candidate_for_design(context.app.ledger, design)
    # lineage: what is made from this file (a G-code) finds the candidate by the file's hash
    lineage = {"candidate_id": candidate.id if candidate else None}
    context.add_artifact(stl_path, kind="stl", meta={**report.__dict__, **lineage})
    check = candidates.export_check(report)
    fields = {
        k: v
        for k, v in report.__dict__.items()
        if k in StlResult.model_fields and k != "volume_mm3"
    }
    state = "watertight" if report.is_watertight else "NOT watertight"
    result = StlResult(
        **fields,
        volume_mm3=report.volume_mm3 if report.is_watertight else None,
        design_sha256=engine.design_sha256(design),
        candidate_id=candidate.id if candidate else None,
        ledger_evidence=f"watertight_export {check.adjudication.value}" if candidate else None,
        message=(
            f"Exported a {state} solid of {report.num_triangles} triangles, "
            f"{report.volume_mm3:.6g} mm^3, {report.num_components} component(s) to {stl_path}."
        ),
    )
    if candidate is not None:  # last: the ledger is append-only, so write only once all is well
        candidates.record(context.app.ledger, candidate, check, context.call_id)
    return result


def ask_human_for_clarification(args: ClarifyArgs, context: ToolContext) -> ClarifyResult:
    return ClarifyResult(
        question=args.clarification_request,
        message=(
            "The question was passed to the engineer. Wait for the answer; do not run design "
            "tools until it arrives."
        ),
    )


def tools() -> list[Tool]:
    return [
        Tool(
            "create_problem",
            "Create an EngiBench problem (beams2d or photonics2d) and describe its design "
            "space, objectives and conditions.",
            CreateArgs,
            ProblemInfo,
            create_problem,
            SideEffect.READ,
        ),
        Tool(
            "get_problem_details",
            "Design space shape and bounds, objectives, conditions and their defaults.",
            ProblemArgs,
            ProblemInfo,
            get_problem_details,
            SideEffect.READ,
        ),
        Tool(
            "optimize_design",
            "Run EngiBench's topology optimiser from the problem's default start; streams every "
            "iteration; returns initial/final objectives and the saved design path.",
            OptimizeArgs,
            OptimizeResult,
            optimize_design,
            SideEffect.COMPUTE,
        ),
        Tool(
            "simulate_design",
            "Evaluate a design's objective: 'last'/'optimized', 'initial', 'random' or an .npy.",
            SimulateArgs,
            SimulateResult,
            simulate_design,
            SideEffect.COMPUTE,
            files=_design_path,
        ),
        Tool(
            "render_design",
            "Draw a design as a PNG (and save its .npy).",
            RenderArgs,
            RenderResult,
            render_design,
            SideEffect.WRITE,
            files=_render_paths,
        ),
        Tool(
            "convert_design_to_stl",
            "Export a design as a closed, watertight STL solid: threshold, XY scale (mm/pixel), "
            "Z extrusion (mm), optional mirror.",
            StlArgs,
            StlResult,
            convert_design_to_stl,
            SideEffect.WRITE,
            files=_stl_paths,
        ),
        Tool(
            "ask_human_for_clarification",
            "Ask the engineer a question when the request is ambiguous or lacks numbers.",
            ClarifyArgs,
            ClarifyResult,
            ask_human_for_clarification,
            SideEffect.READ,
        ),
    ]
