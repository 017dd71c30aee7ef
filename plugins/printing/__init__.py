"""Printing: slice with PrusaSlicer, print on a Prusa over USB serial or PrusaLink, safely.

tools.py, agent.py         the tools and the printing specialist
control.py, control_print  what the tools do: list, status, connect; print, pause, resume, cancel
printers.py                the app's printers: profiles, PrusaLink clients, the way to the host
service.py                 the printer host as a service (`serve`, the desktop app)
config.py                  settings and printer profiles (secrets in the keyring);  outcomes.py
                           what a printer reports back, whatever the transport
gate.py                    what may be printed: a ready ledger candidate, or an override
slicing/                   PrusaSlicer, presets, G-code metadata and layers
usb/                       the USB serial host: streaming, resends, watchdog, pause, safe resume
prusalink/                 the PrusaLink HTTP client and its actions
host/                      the long-lived printer host owning the USB ports, and its socket
doctor_checks.py           the doctor's real printer checks;  bench.py, perf.py: the bench
views/                     the printer panel, printer settings, the G-code preview (Qt)
"""

from workbench.core.plugins import Plugin, ViewSpec
from workbench_plugins.printing.agent import specialist
from workbench_plugins.printing.config import PrintingSettings

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
            shows=(
                "slice_model",
                "list_printers",
                "get_printer_status",
                "connect_printer",
                "disconnect_printer",
                "upload_and_print",
                "pause_print",
                "resume_print",
                "resume_from_layer",
                "cancel_print",
            ),
        ),
    ),
    suites="workbench_plugins.printing.bench:suites",
    settings=PrintingSettings,
    checks="workbench_plugins.printing.doctor_checks:checks",
    services="workbench_plugins.printing.service:services",
)
