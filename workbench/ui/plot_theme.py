"""The one plot theme of the workbench: pyqtgraph's global options, set in this module only.

pyqtgraph reads its global options (background, foreground, antialiasing) when a plot widget is
created, so a view that set them itself changed how every plot created after it looked. Every
view that draws with pyqtgraph calls `ensure_plot_theme()` before creating its plots instead; it
always sets the same values, so calling it again (or in any order) changes nothing.
"""

from __future__ import annotations

import pyqtgraph as pg

BACKGROUND = "#ffffff"  # plots are white, like the rendered PNGs and the ledger
FOREGROUND = "#202020"  # axes, ticks and labels
THEME: dict[str, object] = {
    "background": BACKGROUND,
    "foreground": FOREGROUND,
    "antialias": True,
}


def ensure_plot_theme() -> None:
    """Set pyqtgraph's global options to the workbench theme (idempotent, cheap)."""
    pg.setConfigOptions(**THEME)
