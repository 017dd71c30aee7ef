"""Printing: slice with PrusaSlicer, print on a Prusa over USB serial or PrusaLink, safely.

specialist.py              the printing specialist and its tool names
tools/                     the tools: status.py (list, status, connect, disconnect), actions.py
                           (print, pause, resume, resume from a layer, cancel)
printers.py                the app's printers: profiles, PrusaLink clients, the way to the host
services.py                the printer host as a service (`serve`, the desktop app)
config.py                  settings and printer profiles (secrets in the keyring);  outcomes.py
                           what a printer reports back, whatever the transport
gate.py                    what may be printed: a ready ledger candidate, or an override
gcode_check.py             whether a file is G-code at all (before any port opens, override or not)
slicing/                   PrusaSlicer, presets, G-code metadata and layers, the slice_model tool
usb/                       the USB serial host: streaming, resends, watchdog, pause, safe resume
prusalink/                 the PrusaLink HTTP client and its actions
host/                      the long-lived printer host owning the USB ports, and its socket
doctor_checks.py           the doctor's real printer checks
bench/, perf.py            the `printing` suite (streaming to the emulator) and its figures
views/                     the printer panel, printer settings, the G-code preview (Qt)
"""

from workbench.core.plugins import PLOT_GUI_IMPORTS, Plugin, ViewSpec
from workbench_plugins.printing.config import PrintingSettings
from workbench_plugins.printing.specialist import TOOLS, specialist

plugin = Plugin(
    name="printing",
    title="Printing",
    description="Slice with PrusaSlicer; print on a Prusa over USB or PrusaLink with confirmation.",
    tools="workbench_plugins.printing.tools:tools",
    specialist=specialist,
    views=(
        ViewSpec(
            name="printer",
            title="Printer",
            factory="workbench_plugins.printing.views:printer_panel",
            shows=TOOLS,
            gui_imports=PLOT_GUI_IMPORTS,  # pyqtgraph: its Qt types a module per turn
        ),
    ),
    suites="workbench_plugins.printing.bench:suites",
    settings=PrintingSettings,
    checks="workbench_plugins.printing.doctor_checks:checks",
    services="workbench_plugins.printing.services:services",
)
