"""The judging plugin's Qt view: the Grading panel (the only part of the plugin that imports Qt).

grading_view.py    the panel: a problem, a solution (pasted or the chat's last answer), Grade and
                   Cancel, and the outcome
problem_picker.py  subject, family and seed; the diagram and statement (drawn off the GUI thread)
stage_graph.py     the 8 stages on the dependency graph, coloured by score
results_panel.py   final score and what lowered it, raw vs propagated per stage, errors by severity
judge_run.py       the judge model and one grading with progress and Cancel (Qt-free)
report_of.py       the pipeline's Grade as what the panel shows (grade_report.py), and the same
                   grading over another graph without a judge call (Qt-free)
chat_answer.py     the chat's last answer, read from the workspace's conversation files (Qt-free)
wording.py         failures and bad input in words (Qt-free)
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from workbench_plugins.judging.views.grading_view import GradingView
from workbench_plugins.judging.views.judge_run import JudgeFactory


def grading_view(context: Any, judge_factory: JudgeFactory | None = None) -> QWidget:
    """The Grading panel on the app context; the judge is the settings model unless
    `judge_factory` gives one (a model or a model spec)."""
    return GradingView(context, judge_factory=judge_factory)


__all__ = ["GradingView", "grading_view"]
