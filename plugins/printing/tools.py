"""The printer specialist's tools: slice, list, status, and the physical actions (confirmed)."""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.printing import control
from workbench_plugins.printing.slicing import SliceArgs, SliceResult, slice_model, slice_paths


def tools() -> list[Tool]:
    return [
        Tool(
            "slice_model",
            "Slice an STL with PrusaSlicer for a Prusa printer preset (MK3S, MINI, ...); "
            "returns the G-code path, estimated time, filament and layer height.",
            SliceArgs,
            SliceResult,
            slice_model,
            SideEffect.COMPUTE,
            files=slice_paths,
        ),
        Tool(
            "list_printers",
            "The configured printers (serial ports and PrusaLink URLs) and their states.",
            control.NoArgs,
            control.PrinterList,
            control.list_printers,
            SideEffect.READ,
        ),
        Tool(
            "get_printer_status",
            "Temperatures (nozzle, bed: actual and target), state, progress and time left.",
            control.PrinterArgs,
            control.StatusResult,
            control.get_printer_status,
            SideEffect.READ,
        ),
        Tool(
            "upload_and_print",
            "Send G-code to a printer and start printing (PrusaLink upload or USB streaming). "
            "Prints only a G-code sliced from a ready ledger candidate's STL (found from the "
            "file itself); anything else needs override=true with the engineer's reason.",
            control.PrintArgs,
            control.ActionResult,
            control.upload_and_print,
            SideEffect.PHYSICAL,
            files=control.print_file,
        ),
        Tool(
            "pause_print",
            "Pause the running print.",
            control.PrinterArgs,
            control.ActionResult,
            control.pause_print,
            SideEffect.PHYSICAL,
        ),
        Tool(
            "resume_print",
            "Resume a paused print (also after a USB reconnect).",
            control.PrinterArgs,
            control.ActionResult,
            control.resume_print,
            SideEffect.PHYSICAL,
        ),
        Tool(
            "cancel_print",
            "Stop the print and turn the heaters off.",
            control.PrinterArgs,
            control.ActionResult,
            control.cancel_print,
            SideEffect.PHYSICAL,
        ),
    ]
