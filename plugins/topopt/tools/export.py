"""convert_design_to_stl: a design exported as a watertight STL, checked in the ledger."""

from __future__ import annotations

from pathlib import Path

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.topopt import candidates, designs, engine
from workbench_plugins.topopt.stl import StlSettings, export_stl
from workbench_plugins.topopt.tools.arguments import StlArgs
from workbench_plugins.topopt.tools.failures import engine_errors
from workbench_plugins.topopt.tools.results import StlResult


def stl_paths(args: StlArgs, context: ToolContext) -> tuple[Path | None, Path]:
    """The .npy read (None for 'last' and the like) and the STL written, with the exporter's
    scratch file beside it (the registry's `files`)."""
    source = designs.design_file(context, args.npy_file_path)
    stem = Path(args.npy_file_path).stem if source else f"{args.problem_type}_design"
    stl = designs.output_path(context, args.stl_file_path, f"{stem}.stl")
    designs.output_path(context, f"{stl}.part", "")  # export_stl writes there first
    return source, stl


def convert_design_to_stl(args: StlArgs, context: ToolContext) -> StlResult:
    source = args.npy_file_path
    source_path, stl_path = stl_paths(args, context)  # confined before anything is written
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
    stored = context.add_artifact(stl_path, kind="stl", meta={**report.__dict__, **lineage})
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
        stl_sha256=stored.sha256,
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
