"""The slice_model tool: presets by name -> flat .ini -> PrusaSlicer job -> G-code + metadata."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from workbench.core.jobs import JobCancelled, JobFailed
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.printing.config import PrintingSettings
from workbench_plugins.printing.gate import file_lineage
from workbench_plugins.printing.slicing.profiles import ProfileError, resolve_presets, write_ini
from workbench_plugins.printing.slicing.slicer import slice_job


def plugin_settings(context: ToolContext) -> PrintingSettings:
    return context.app.settings.plugin("printing", PrintingSettings)


def outputs_folder(context: ToolContext) -> Path:
    folder = context.app.store.folder / "outputs" / "printing"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class SliceArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stl_path: str = Field(
        ...,
        min_length=1,
        description="The STL model to slice (the stl_path convert_design_to_stl returned; a "
        "file outside the workspace needs a person's confirmation)",
    )
    printer: str | None = Field(
        None, description="Printer preset or alias (MK3S, MINI, ...); default from settings"
    )
    print_preset: str | None = Field(None, description="e.g. '0.20mm QUALITY @MK3'")
    filament_preset: str | None = Field(None, description="e.g. 'Prusament PLA'")
    output_path: str | None = Field(None, description="G-code path (default: workspace outputs)")


class SliceResult(BaseModel):
    message: str
    gcode_path: str
    job_id: str
    printer: str
    print_preset: str
    filament_preset: str
    printer_model: str
    printer_check: str
    estimated_time_s: float | None
    estimated_time_text: str
    filament_mm: float | None
    filament_g: float | None
    layer_height: float | None
    layers: int
    command_lines: int
    model_size_mm: list[float]


def slice_paths(args: SliceArgs, context: ToolContext) -> tuple[Path, Path | None]:
    """The STL read and the G-code written if named (the registry's `files`): relative paths in
    the workspace's printing outputs, anything outside the workspace only when confirmed."""
    folder = outputs_folder(context)
    stl = context.file(args.stl_path, mode="read", base=folder)
    out = context.file(args.output_path, mode="write", base=folder) if args.output_path else None
    return stl, out


def slice_model(args: SliceArgs, context: ToolContext) -> SliceResult:
    settings = plugin_settings(context)
    stl, out = slice_paths(args, context)
    if not stl.is_file():  # before anything reads it (the lineage hash) or is written
        what = "is a folder, not an STL file" if stl.is_dir() else "does not exist"
        raise ToolFailure(
            f"Cannot slice {stl}: it {what}.",
            hint="Name the STL convert_design_to_stl returned (relative paths are in the "
            "workspace's outputs/printing).",
        )
    try:
        presets = resolve_presets(
            args.printer or settings.default_printer,
            args.print_preset,
            args.filament_preset,
            bundle_path=Path(settings.profiles_path) if settings.profiles_path else None,
        )
    except ProfileError as error:
        raise ToolFailure(str(error), hint="Name a preset of the Prusa bundle.") from None
    folder = outputs_folder(context)
    model_tag = presets.printer_model or "printer"
    name = f"{stl.stem}_{model_tag}"
    out = out or context.file(f"{name}.gcode", mode="write", base=folder)
    context.file(f"{out.stem}.part.gcode", mode="write", base=out.parent)  # the slicer's scratch
    ini = write_ini(presets, context.file(f"{name}.ini", mode="write", base=folder))
    source = file_lineage(context.app.store, stl)  # before slicing: the file may change meanwhile
    job = context.app.jobs.submit(
        slice_job,
        str(stl),
        str(ini),
        str(out),
        settings.slicer_path,
        presets.bed_shape,
        presets.max_print_height,
        settings.slice_timeout_s,
        title=f"slice {stl.name} for {model_tag}",
    )
    try:
        produced: dict[str, Any] = job.result()
    except JobCancelled:
        raise ToolFailure(f"Slicing {stl.name} was cancelled; no G-code was kept.") from None
    except JobFailed as failure:
        raise ToolFailure(f"Slicing {stl.name} failed: {failure}") from None
    if "error" in produced:
        raise ToolFailure(produced["error"])
    meta = produced["meta"]
    # lineage: upload_and_print finds the candidate of this G-code by its hash (print gate)
    lineage = {"source_sha256": source.sha256, "candidate_id": source.candidate_id}
    context.add_artifact(out, kind="gcode", meta={**meta, "printer": presets.printer, **lineage})
    return SliceResult(
        message=(
            f"Sliced {stl.name} for {presets.printer} ({presets.print}, {presets.filament}): "
            f"{meta['layers']} layers, about {meta['estimated_time_text'] or '?'}, "
            f"{meta['filament_g'] or 0:.2f} g of filament -> {out}."
        ),
        gcode_path=str(out),
        job_id=job.id,
        printer=presets.printer,
        print_preset=presets.print,
        filament_preset=presets.filament,
        printer_model=meta["printer_model"],
        printer_check=meta["printer_check"],
        estimated_time_s=meta["estimated_time_s"],
        estimated_time_text=meta["estimated_time_text"],
        filament_mm=meta["filament_mm"],
        filament_g=meta["filament_g"],
        layer_height=meta["layer_height"],
        layers=meta["layers"],
        command_lines=meta["command_lines"],
        model_size_mm=produced["mesh"]["size_mm"],
    )
