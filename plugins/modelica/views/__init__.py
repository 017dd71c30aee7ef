"""Qt views of the Modelica plugin (the only part of the plugin that imports Qt).

trajectories.py   every simulation of the workspace overlaid (stored_runs.py lists and reads
                  them from the store), a variable list, a legend that wraps (legend.py) and
                  invariant marks (marks.py)
editor.py         a Modelica editor that checks and simulates through the tools
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from workbench_plugins.modelica.views.editor import EditorView
from workbench_plugins.modelica.views.trajectories import TrajectoryView


def trajectory_view(context: Any) -> QWidget:
    return TrajectoryView(context)


def editor_view(context: Any) -> QWidget:
    return EditorView(context)


__all__ = ["EditorView", "TrajectoryView", "editor_view", "trajectory_view"]
