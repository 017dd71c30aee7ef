"""Printing: slice with PrusaSlicer, print on a Prusa over USB serial or PrusaLink, safely."""

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
    checks="workbench_plugins.printing.checks:checks",
)
