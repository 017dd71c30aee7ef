"""Qt views of the Modelica plugin (the only part of the plugin that imports Qt).

trajectories.py   every simulation of the workspace overlaid (stored_runs.py lists and reads
                  them from the store), a variable list, a legend that wraps (legend.py) and
                  invariant marks (marks.py)
editor.py         a Modelica editor that checks and simulates through the tools
task_view.py      start a task (task JSON or brief: task_source.py, task_brief.py) and follow it
                  live (task_progress.py) with its current candidate's ledger (task_ledger.py)
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from workbench_plugins.modelica.views.editor import EditorView
from workbench_plugins.modelica.views.task_view import TaskView
from workbench_plugins.modelica.views.trajectories import TrajectoryView


def trajectory_view(context: Any) -> QWidget:
    return TrajectoryView(context)


def editor_view(context: Any) -> QWidget:
    return EditorView(context)


def task_view(context: Any) -> QWidget:
    return TaskView(context)


__all__ = [
    "EditorView",
    "TaskView",
    "TrajectoryView",
    "editor_view",
    "task_view",
    "trajectory_view",
]
