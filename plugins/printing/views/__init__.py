"""The printing plugin's Qt views (the only part of the plugin that imports Qt)."""

from workbench_plugins.printing.views.gcode_preview import FAINT, STRONG, GcodePreview
from workbench_plugins.printing.views.panel import PrinterPanel, printer_panel

__all__ = ["FAINT", "STRONG", "GcodePreview", "PrinterPanel", "printer_panel"]
