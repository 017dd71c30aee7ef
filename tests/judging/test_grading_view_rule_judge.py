"""The Grading panel offers the rule-based judge as a named choice (issue 29): "Rule-based rubric
(no model)", said to be rules, grades a pasted solution through the real pipeline with no model
at all (the panel has no judge factory, and the settings name a model no server answers), and the
report names it. The picture goes to judging-panel/ in the test artifact folder."""

from __future__ import annotations

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.judging.test_grading_view import FAMILY, SEED, TIMEOUT_MS, solution_for
from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench_plugins.judging.views import GradingView, grading_view

RULES = "Rule-based rubric (no model)"


def test_the_rule_based_rubric_is_a_named_choice_that_grades_without_a_model(
    qtbot: QtBot, context: AppContext
) -> None:
    context.settings.model = "ollama:no-such-model"  # a model call would fail, and say so
    view = grading_view(context)
    assert isinstance(view, GradingView)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    qtbot.waitExposed(view)
    with qtbot.waitSignal(view.picker.chosen, timeout=TIMEOUT_MS):
        view.picker.choose(FAMILY, SEED)
    qtbot.waitUntil(lambda: view.picker.problem is not None)
    problem = view.picker.problem
    assert problem is not None

    choices = [view.judge_box.itemText(i) for i in range(view.judge_box.count())]
    assert RULES in choices and any("ollama:no-such-model" in text for text in choices)
    rules_at = choices.index(RULES)
    said = str(view.judge_box.itemData(rules_at, Qt.ItemDataRole.ToolTipRole))
    assert "not a language model" in said
    view.judge_box.setCurrentIndex(rules_at)
    view.solution.setPlainText(solution_for(problem))
    with qtbot.waitSignal(view.graded, timeout=TIMEOUT_MS):
        qtbot.mouseClick(view.grade_button, Qt.MouseButton.LeftButton)
    report = view.report
    assert report is not None and report.final is not None, view.message.text()
    assert report.judge == RULES and not report.failures
    assert view.grab().save(str(artifact_folder("judging-panel") / "rule-based-judge.png"))
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=TIMEOUT_MS)
