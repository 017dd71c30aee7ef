"""Printing: slice with PrusaSlicer, print on a Prusa over USB serial or PrusaLink, safely.

tools.py, agent.py      the tools and the printing specialist
slicer.py, slicing.py   PrusaSlicer (the binary) and the slice tool's bookkeeping; profiles.py
gate.py, gcode_meta.py  what may be printed: artifact lineage from a checked candidate
printers.py, control.py one manager per configured printer; start, pause, resume, cancel
prusalink.py            the PrusaLink HTTP client
serial_host.py          a USB printer: serial_port.py (open, lock, handshake), serial_link.py
                        (the port on the event loop), serial_protocol.py (line numbers, resends),
                        print_job.py (the streamed file), temperatures.py
emulator.py             a Marlin-like printer on a pseudo-terminal (tests, bench)
doctor_checks.py        the doctor's real printer checks;  bench.py, perf.py: the printing bench
views/                  the printer panel and the G-code preview (Qt)
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
        ),
    ),
    suites="workbench_plugins.printing.bench:suites",
    settings=PrintingSettings,
    checks="workbench_plugins.printing.doctor_checks:checks",
)
