"""The printer specialist's tools: slice, list, status, connect, and the physical actions
(confirmed).

- `status`: list_printers, get_printer_status, connect_printer, disconnect_printer (and the
  shared argument models)
- `actions`: upload_and_print, pause_print, resume_print, resume_from_layer, cancel_print
- slice_model is the slicing engine's own tool (slicing/slice_tool.py)
"""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.printing.slicing.slice_tool import (
    SliceArgs,
    SliceResult,
    slice_model,
    slice_paths,
)
from workbench_plugins.printing.tools import actions, status
from workbench_plugins.printing.tools.precheck import printer_precheck


def tools() -> list[Tool]:
    return [*_looking(), *_acting()]


def _looking() -> list[Tool]:
    """Slicing, and the printer tools that only read or hold a port open."""
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
            "The configured printers (name, USB port or PrusaLink URL) and the state each "
            "reports now.",
            status.NoArgs,
            status.PrinterList,
            status.list_printers,
            SideEffect.READ,
        ),
        Tool(
            "get_printer_status",
            "Temperatures (nozzle, bed: actual and target), state, file, progress and time left; "
            "for a USB print that cannot simply resume, the resume-from-layer offer.",
            status.PrinterArgs,
            status.StatusResult,
            status.get_printer_status,
            SideEffect.READ,
        ),
        Tool(
            "connect_printer",
            "Open a USB printer's port through the printer host (this resets an MK3) so it can "
            "be watched and printed on; after an unplug it finds the held print again.",
            status.PrinterArgs,
            status.StatusResult,
            status.connect_printer,
            SideEffect.PHYSICAL,
            precheck=printer_precheck,
        ),
        Tool(
            "disconnect_printer",
            "Close a USB printer's port (refused while a print runs: cancel it first).",
            status.PrinterArgs,
            status.StatusResult,
            status.disconnect_printer,
            SideEffect.WRITE,
        ),
    ]


def _acting() -> list[Tool]:
    """The physical actions: confirmed by a person before they run, and only about a printer
    that is configured (`printer_precheck`)."""
    return [
        Tool(
            "upload_and_print",
            "Send G-code to a printer and start printing (PrusaLink upload or USB streaming "
            "through the printer host, which keeps printing after this call). Prints only a "
            "G-code sliced from a ready ledger candidate's STL (found from the file itself); "
            "anything else needs override=true with the engineer's reason.",
            actions.PrintArgs,
            actions.ActionResult,
            actions.upload_and_print,
            SideEffect.PHYSICAL,
            files=actions.print_file,
            precheck=printer_precheck,
        ),
        Tool(
            "pause_print",
            "Pause the running print; the result says whether the printer confirmed it.",
            status.PrinterArgs,
            actions.ActionResult,
            actions.pause_print,
            SideEffect.PHYSICAL,
            precheck=printer_precheck,
        ),
        Tool(
            "resume_print",
            "Resume a paused print (after a USB reconnect it re-heats and homes first, or is "
            "refused with a resume-from-layer offer).",
            status.PrinterArgs,
            actions.ActionResult,
            actions.resume_print,
            SideEffect.PHYSICAL,
            precheck=printer_precheck,
        ),
        Tool(
            "resume_from_layer",
            "USB only: restart a held print from a layer (re-heat, home, go to the layer's "
            "height, continue), as a refused resume offered.",
            actions.LayerArgs,
            actions.ActionResult,
            actions.resume_from_layer,
            SideEffect.PHYSICAL,
            precheck=printer_precheck,
        ),
        Tool(
            "cancel_print",
            "Stop the print and turn the heaters off.",
            status.PrinterArgs,
            actions.ActionResult,
            actions.cancel_print,
            SideEffect.PHYSICAL,
            precheck=printer_precheck,
        ),
    ]
