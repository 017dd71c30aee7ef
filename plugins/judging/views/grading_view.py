"""The Grading panel: choose a problem, paste a solution (or take the chat's last answer), Grade
it with the judge model, and see the stage scores on the dependency graph, the errors per stage
with their severity, and the final score with what lowered it.

Everything slow runs off the GUI thread: making and drawing the problem (problem_picker.py),
reading the chat's conversations (chat_answer.py), building the judge and the 11 judge calls
(judge_run.py). Cancel stops the grading after the call under way; a grading that was cancelled
or replaced never paints its result.
"""

from __future__ import annotations

import asyncio
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.async_loop import start_task
from workbench.ui.naming import named
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.graphs import GRAPHS
from workbench_plugins.judging.scoring.parser import parse_solution
from workbench_plugins.judging.scoring.pipeline import Grade, GradingCancelled
from workbench_plugins.judging.scoring.stages import STAGE_NAMES, STAGES
from workbench_plugins.judging.views.chat_answer import NoChatAnswer, last_chat_answer
from workbench_plugins.judging.views.grade_report import GradeReport
from workbench_plugins.judging.views.judge_run import (
    CALLS_PER_GRADING,
    META_CALLS,
    RULE_BASED,
    JudgeFactory,
    JudgeWatch,
    judge_model,
    run_grading,
)
from workbench_plugins.judging.views.problem_picker import ProblemPicker
from workbench_plugins.judging.views.report_of import over_graph, parents_of, report_of
from workbench_plugins.judging.views.results_panel import ResultsPanel
from workbench_plugins.judging.views.stage_graph import StageGraphView
from workbench_plugins.judging.views.wording import EMPTY_SOLUTION, judge_failure_text

ERROR_STYLE = "color: #b00020"
PLACEHOLDER = (
    "Paste a solution written in the 8 tagged stages, <PC>…</PC> <AS>…</AS> <VI>…</VI> "
    "<ES>…</ES> <LR>…</LR> <AA>…</AA> <PI>…</PI> <FA>value unit</FA>, or take the chat's last "
    "answer."
)


class GradingView(QWidget):
    graded = Signal()  # a grading ended and its outcome (result, failure, cancel) is shown
    call_finished = Signal(int, str)  # from the worker thread: calls so far, what was judged

    def __init__(
        self,
        context: Any,
        parent: QWidget | None = None,
        *,
        judge_factory: JudgeFactory | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("judging-grading-view")
        self.context = context
        self.judge_factory = judge_factory  # None: the settings model
        self.report: GradeReport | None = None
        # the last grading (problem, grade, judge), propagated again when the graph changes
        self.result: tuple[Problem, Grade, str] | None = None
        self.watch: JudgeWatch | None = None  # the grading under way
        self.expected_calls = CALLS_PER_GRADING  # its judge calls: present stages + 3 checks
        self._build()
        self.call_finished.connect(self._show_progress)
        self.picker.chosen.connect(self._problem_chosen)
        self._draw_graph()

    # -- building -------------------------------------------------------------------------------
    def _build(self) -> None:
        self.picker = ProblemPicker()
        self.solution = named(QPlainTextEdit(), "judging-solution")
        self.solution.setPlaceholderText(PLACEHOLDER)
        self.take_chat = named(QPushButton("Take the chat's last answer"), "judging-take-chat")
        self.take_chat.clicked.connect(self.take_chat_answer)
        self.graph_box = named(QComboBox(), "judging-graph")
        self.graph_box.addItems(list(GRAPHS))
        self.graph_box.setToolTip(
            "How a stage's score depends on its parents: dag (the default), chain (each stage on "
            "the one before) or flat (no propagation)"
        )
        self.graph_box.currentTextChanged.connect(self._graph_changed)
        self.judge_box = named(QComboBox(), "judging-judge")
        self.judge_box.addItem(f"Model: {self.context.settings.model}", False)
        self.judge_box.addItem(RULE_BASED, True)
        self.judge_box.setItemData(
            1,
            "Fixed marking rules, not a language model: no tokens, and its scores check the "
            "pipeline rather than judge the physics",
            Qt.ItemDataRole.ToolTipRole,
        )
        self.judge_box.setToolTip("Who grades: the chat's model, or the rule-based rubric")
        self.images_box = named(QCheckBox("Send the diagram"), "judging-images")
        self.images_box.setToolTip("Only for a judge model that reads images")
        self.grade_button = named(QPushButton("Grade"), "judging-grade")
        self.grade_button.clicked.connect(self.grade)
        self.cancel_button = named(QPushButton("Cancel"), "judging-cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = named(QProgressBar(), "judging-progress")
        self.progress.setRange(0, CALLS_PER_GRADING)
        self.progress.setValue(0)
        self.progress.setFormat("Idle")
        self.message = named(QLabel(), "judging-message")
        self.message.setWordWrap(True)
        self.message.setStyleSheet(ERROR_STYLE)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.take_chat)
        buttons.addStretch(1)
        buttons.addWidget(QLabel("Judge"))
        buttons.addWidget(self.judge_box)
        buttons.addWidget(QLabel("Graph"))
        buttons.addWidget(self.graph_box)
        buttons.addWidget(self.images_box)
        buttons.addWidget(self.grade_button)
        buttons.addWidget(self.cancel_button)
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 4, 0)
        column.addWidget(self.picker, 3)
        column.addWidget(QLabel("Solution"))
        column.addWidget(self.solution, 2)
        column.addLayout(buttons)
        column.addWidget(self.progress)
        column.addWidget(self.message)

        self.graph = StageGraphView()
        self.results = ResultsPanel()
        right = QWidget()
        outcome = QVBoxLayout(right)
        outcome.setContentsMargins(4, 0, 0, 0)
        outcome.addWidget(self.graph, 1)
        outcome.addWidget(self.results, 2)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        # the problem and the results side by side need ~800 px: in a narrower dock (the window
        # at 1024 px with chat and ledger open) they scroll rather than widen the window
        scroller = QScrollArea()
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.Shape.NoFrame)
        scroller.setWidget(split)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(scroller)

    # -- input ----------------------------------------------------------------------------------
    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))

    def take_chat_answer(self) -> None:
        """Put the newest chat answer into the solution box (read off the GUI thread)."""
        self.show_message("")
        self.take_chat.setEnabled(False)
        start_task(self._take_chat_answer(), name="judging-chat-answer")

    async def _take_chat_answer(self) -> None:
        try:
            answer = await asyncio.to_thread(last_chat_answer, self.context.store.folder)
        except NoChatAnswer as missing:
            if shiboken6.isValid(self):
                self.show_message(str(missing))
            return
        finally:
            if shiboken6.isValid(self):
                self.take_chat.setEnabled(True)
        if shiboken6.isValid(self):
            self.solution.setPlainText(answer.text)
            self.solution.setToolTip(f"From the chat: {answer.title}")

    def _problem_chosen(self, problem: Problem) -> None:
        if self.report is not None and self.report.problem_id != problem.id:
            self._forget_result(f"Not graded yet against {problem.id}.")

    def _graph_changed(self, name: str) -> None:
        """Redraw the arrows; a grading shown is propagated again over them (no judge call)."""
        self._draw_graph()
        if self.result is not None:
            problem, result, judge_name = self.result
            self.show_report(report_of(over_graph(result, name), problem, judge_name))

    def _draw_graph(self) -> None:
        stages = [(code, STAGE_NAMES[code]) for code in STAGES]
        self.graph.show_graph(stages, parents_of(self.graph_box.currentText()))

    def _forget_result(self, text: str) -> None:
        self.report = self.result = None
        self.graph.clear_scores()
        self.results.clear(text)

    # -- grading --------------------------------------------------------------------------------
    def grade(self) -> None:
        """Grade the solution against the chosen problem, off the GUI thread."""
        problem, text = self.picker.problem, self.solution.toPlainText()
        if problem is None:
            self.show_message("The problem is still being drawn; Grade again in a moment.")
            return
        if not text.strip():
            self.show_message(EMPTY_SOLUTION)
            return
        if self.watch is not None:
            return  # one grading at a time (the button is disabled meanwhile)
        self.show_message("")
        self._forget_result(f"Grading {problem.id}…")
        self.watch = watch = JudgeWatch(self.call_finished.emit)
        self.destroyed.connect(watch.cancel)  # a closed panel stops its grading
        self.expected_calls = len(parse_solution(text).present) + META_CALLS
        self._set_busy(True)
        graph, images = self.graph_box.currentText(), self.images_box.isChecked()
        rules = bool(self.judge_box.currentData())
        start_task(self._grade(problem, text, watch, graph, images, rules), name="judging-grade")

    async def _grade(
        self,
        problem: Problem,
        text: str,
        watch: JudgeWatch,
        graph: str,
        images: bool,
        rules: bool = False,
    ) -> None:
        settings = self.context.settings
        try:
            judge, judge_name = await asyncio.to_thread(
                judge_model, self.judge_factory, settings, problem, rule_based=rules
            )
            result = await asyncio.to_thread(
                run_grading,
                problem,
                text,
                judge,
                watch,
                graph=graph,
                images=images,
                settings=settings,
            )
            report = report_of(result, problem, judge_name)
        except GradingCancelled:
            self._ended(watch, None, "Grading cancelled; no score was given.")
            return
        except Exception as error:  # the boundary to a person: say it in words
            self._ended(watch, None, judge_failure_text(error, settings))
            return
        if shiboken6.isValid(self) and watch is self.watch:
            self.result = (problem, result, judge_name)
        self._ended(watch, report, "")

    def cancel(self) -> None:
        if self.watch is not None:
            self.watch.cancel()
            self.cancel_button.setEnabled(False)
            self.progress.setFormat("Cancelling after the judge call under way…")

    def _ended(self, watch: JudgeWatch, report: GradeReport | None, failure: str) -> None:
        cancelled, calls = watch.cancelled, watch.calls  # read before `is` narrows its type
        if not shiboken6.isValid(self) or watch is not self.watch:
            return
        self.watch = None
        self._set_busy(False)
        if report is None:
            self.results.clear("Not graded.")
            self.graph.clear_scores("no score")
            self.show_message(failure)
            self.progress.setFormat("Cancelled" if cancelled else "Failed")
        else:
            self.show_report(report)
            failed = f", {report.failed_calls} failed" if report.failed_calls else ""
            self.progress.setFormat(f"Done: {calls} judge calls{failed}")
        self.graded.emit()

    def show_report(self, report: GradeReport) -> None:
        self.report = report
        notes = {line.stage: (line.badge, line.note) for line in report.stages if line.note}
        self.graph.show_scores(
            {line.stage: line.propagated for line in report.stages},
            {line.stage: line.raw for line in report.stages},
            notes,
        )
        self.results.show_report(report)
        if report.failures:
            self.show_message(" ".join(report.failures))

    def _set_busy(self, busy: bool) -> None:
        self.grade_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.graph_box.setEnabled(not busy)
        self.picker.setEnabled(not busy)
        if busy:
            self.progress.setRange(0, self.expected_calls)
            self.progress.setValue(0)
            self.progress.setFormat(f"Judge call 1 of {self.expected_calls}…")

    def _show_progress(self, calls: int, judged: str) -> None:
        if self.watch is None or self.watch.cancelled:
            return
        self.progress.setMaximum(max(self.expected_calls, calls))
        self.progress.setValue(calls)
        self.progress.setFormat(f"Judge call {calls} of {self.expected_calls} done: {judged}")
