"""Acceptance 6: the Grading panel grades a pasted solution with a scripted judge (a fake: language
models cannot run here) through the real pipeline, and shows the stage scores on the dependency
graph, a planted error with its severity, the final score and what lowered it; a judge failure is
said as such; the chat's last answer can be taken; Cancel stops a grading. The screenshot is kept
under judging-panel/ in the test artifact folder."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
import pytest
from pydantic import PrivateAttr
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.graphs import GRAPHS
from workbench_plugins.judging.scoring.stages import STAGES
from workbench_plugins.judging.views import GradingView, grading_view
from workbench_plugins.judging.views.results_panel import SEVERITY_ROLE
from workbench_plugins.judging.views.stage_graph import NODE_RAW, NODE_SCORE

FAMILY, SEED = "beam_point_load", 1
PLANTED = "Uses the cantilever tip deflection PL^3/(3EI) for a simply supported beam"
TIMEOUT_MS = 30_000


def solution_for(problem: Problem, stages: tuple[str, ...] = STAGES) -> str:
    """A tagged solution whose final answer is the ground truth (the code checks FA)."""
    text = {code: f"The {code} part of the reasoning for {problem.id}." for code in STAGES}
    text["FA"] = f"{problem.answer_value:.4g} {problem.answer_unit}"
    return "\n".join(f"<{code}>\n{text[code]}\n</{code}>" for code in stages)


def verdict(
    errors: list[dict[str, str]] | None = None, fatal: list[str] | None = None
) -> dict[str, Any]:
    args = {"errors": errors or [], "fatal": fatal or [], "comment": "checked"}
    return {
        "tool_calls": [{"name": "StageVerdict", "args": args}],
        "usage": {"input_tokens": 300, "output_tokens": 30},
    }


def check(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": {**args, "comment": "ok"}}]}


def rubric_script(planted_in: str = "ES", coverage: float = 10.0) -> list[dict[str, Any]]:
    """The scripted judge's replies in the pipeline's call order: 8 stages, then 3 checks."""
    planted = [{"description": PLANTED, "severity": "major"}]
    stages = [verdict(planted if code == planted_in else None) for code in STAGES]
    return [
        *stages,
        check("CoverageVerdict", score=coverage),
        check("VerbosityVerdict", score=10),
        check("SanityVerdict", sanity_fail=False),
    ]


def expected_dag(raw: dict[str, float]) -> dict[str, float]:
    """The spec's propagation by hand: S_t = Y_t * mean(S_p / 10) over the parents."""
    table, scores = GRAPHS["dag"], dict[str, float]()
    for code in STAGES:  # STAGES is a topological order of the DAG
        parents = table[code]
        scores[code] = raw[code] * (
            sum(scores[p] / 10 for p in parents) / len(parents) if parents else 1
        )
    return scores


def open_panel(qtbot: QtBot, context: AppContext, judge: Any) -> GradingView:
    view = grading_view(context, judge_factory=lambda: judge)
    assert isinstance(view, GradingView)
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    qtbot.waitExposed(view)
    with qtbot.waitSignal(view.picker.chosen, timeout=TIMEOUT_MS):
        view.picker.choose(FAMILY, SEED)
    qtbot.waitUntil(lambda: view.picker.problem is not None and view.picker.problem.seed == SEED)
    return view


def grade(qtbot: QtBot, view: GradingView) -> None:
    with qtbot.waitSignal(view.graded, timeout=TIMEOUT_MS):
        qtbot.mouseClick(view.grade_button, Qt.MouseButton.LeftButton)


def error_items(view: GradingView) -> list[tuple[str, str, str]]:
    """(group, text, severity) of every line in the errors tree."""
    tree, found = view.results.errors, []
    for i in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(i)
        for j in range(group.childCount()):
            item = group.child(j)
            found.append((group.text(0), item.text(0), item.data(0, SEVERITY_ROLE)))
    return found


def settle_layout(qtbot: QtBot, view: GradingView) -> None:
    """Wait for the layout to fit the new texts (a screenshot at once shows the old heights)."""
    lowered = view.results.lowered
    qtbot.waitUntil(lambda: lowered.height() >= lowered.heightForWidth(lowered.width()))


@pytest.fixture(autouse=True)
def settle(qtbot: QtBot) -> Any:
    yield
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=TIMEOUT_MS)


def test_scripted_judge_grades_a_pasted_solution_onto_the_graph(
    qtbot: QtBot, context: AppContext
) -> None:
    judge = ScriptedChatModel(replies=rubric_script(coverage=8))
    view = open_panel(qtbot, context, judge)
    problem = view.picker.problem
    assert problem is not None and problem.family == FAMILY
    assert not view.picker.diagram.pixmap_full.isNull()  # the diagram was drawn
    view.solution.setPlainText(solution_for(problem))
    grade(qtbot, view)

    assert judge.remaining == 0  # 8 stage calls and 3 checks, all from the panel
    raw = {code: 3.0 if code == "ES" else 10.0 for code in STAGES}  # major: 10 - 7
    expected = expected_dag(raw)
    nodes = view.graph.nodes
    assert set(nodes) == set(STAGES)
    for code in STAGES:
        assert nodes[code].data(NODE_RAW) == pytest.approx(raw[code])
        assert nodes[code].data(NODE_SCORE) == pytest.approx(expected[code])
    assert nodes["ES"].brush().color() != nodes["PC"].brush().color()  # coloured by score
    dag_edges = {(parent, child) for child, parents in GRAPHS["dag"].items() for parent in parents}
    assert view.graph.edge_pairs() == dag_edges

    table = view.results.table
    es_row = STAGES.index("ES")
    assert table.item(es_row, 1).text() == "3.0" and table.item(es_row, 2).text() == "3.0"
    assert float(table.item(STAGES.index("FA"), 2).text()) == pytest.approx(
        expected["FA"], abs=0.05
    )

    assert next(g for g, t, _ in error_items(view) if PLANTED in t).startswith("ES")
    assert any(PLANTED in text and severity == "major" for _, text, severity in error_items(view))

    s_final = sum(expected.values()) / 8 * (1 - 0.2)  # coverage 8/10 takes 20 %
    assert f"{s_final:.2f}" in view.results.final.text()
    lowered = view.results.lowered.text()
    assert "ES Equation Selection scored 3/10" in lowered and "Coverage 8/10" in lowered
    facts = view.results.facts.text()  # the ground truth only after grading, and the calls
    assert f"Ground truth: {problem.answer_value:.4g} {problem.answer_unit}" in facts
    assert "11 judge calls" in facts
    assert not view.message.isVisible()

    settle_layout(qtbot, view)
    shot = artifact_folder("judging-panel") / "grading-panel.png"
    assert view.grab().save(str(shot))
    assert shot.stat().st_size > 10_000

    # another graph: propagated again from the same judgements, without a judge call
    view.graph_box.setCurrentText("flat")
    assert view.graph.edge_pairs() == set()
    assert nodes is not view.graph.nodes
    assert view.graph.nodes["FA"].data(NODE_SCORE) == pytest.approx(10.0)
    assert view.graph.nodes["ES"].data(NODE_SCORE) == pytest.approx(3.0)
    assert f"{sum(raw.values()) / 8 * 0.8:.2f}" in view.results.final.text()


def test_scripted_judge_failure_is_said_and_never_scored(qtbot: QtBot, context: AppContext) -> None:
    malformed = {"content": "I think the stage is fine, 8/10."}  # no structured output at all
    replies = rubric_script()
    replies[3:4] = [malformed, malformed]  # ES: malformed, retried once, malformed again
    judge = ScriptedChatModel(replies=replies)
    view = open_panel(qtbot, context, judge)
    view.solution.setPlainText(solution_for(view.picker.problem))  # type: ignore[arg-type]
    grade(qtbot, view)

    assert "No final score: the judge failed" in view.results.final.text()
    assert "11 judge calls, 1 failed" in view.progress.format()
    assert view.message.isVisible() and "judge failed on Equation Selection" in view.message.text()
    assert view.graph.nodes["ES"].data(NODE_SCORE) is None
    assert view.graph.nodes["PC"].data(NODE_SCORE) == pytest.approx(10.0)
    failures = [t for g, t, s in error_items(view) if s == "failure"]
    assert failures and "Equation Selection" in failures[0]
    settle_layout(qtbot, view)
    shot = artifact_folder("judging-panel") / "judge-failure.png"
    assert view.grab().save(str(shot))


def test_scripted_judge_that_cannot_answer_and_empty_input_are_said(
    qtbot: QtBot, context: AppContext
) -> None:
    judge = ScriptedChatModel(replies=[])  # no reply at all: the model "fails"
    view = open_panel(qtbot, context, judge)
    qtbot.mouseClick(view.grade_button, Qt.MouseButton.LeftButton)  # nothing pasted
    assert view.message.isVisible() and "no solution to grade" in view.message.text()
    assert view.cancel_button.isEnabled() is False

    view.solution.setPlainText(solution_for(view.picker.problem))  # type: ignore[arg-type]
    grade(qtbot, view)
    said = view.message.text()  # every call failed the same way: said once, naming them all
    assert said.count("The judge failed on") == 1 and "server running" in said
    assert "Problem Characterization" in said and "sanity check" in said and "No score" in said
    assert "No final score" in view.results.final.text()
    assert all(node.data(NODE_SCORE) is None for node in view.graph.nodes.values())


def chat_about(context: AppContext, answers: list[str]) -> int:
    """A conversation in the workspace's chat files: the agent (scripted) answers each turn."""
    runtime = AgentRuntime(context, ScriptedChatModel(replies=[{"content": a} for a in answers]))
    try:
        thread = runtime.new_thread()
        return sum(
            runtime.send_sync(thread, f"turn {i}").status == "done" for i in range(len(answers))
        )
    finally:
        runtime.close()


class GatedJudge(ScriptedChatModel):
    """A scripted judge whose second call waits until the test opens the gate."""

    _gate: threading.Event = PrivateAttr(default_factory=threading.Event)
    _waiting: threading.Event = PrivateAttr(default_factory=threading.Event)

    def _next_reply(self) -> dict[str, Any]:
        if self.position == 1:
            self._waiting.set()
            self._gate.wait(10)
        return super()._next_reply()


def test_scripted_grading_can_be_cancelled(qtbot: QtBot, context: AppContext) -> None:
    judge = GatedJudge(replies=rubric_script())
    view = open_panel(qtbot, context, judge)
    view.solution.setPlainText(solution_for(view.picker.problem))  # type: ignore[arg-type]
    qtbot.mouseClick(view.grade_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(judge._waiting.is_set, timeout=TIMEOUT_MS)
    assert view.cancel_button.isEnabled() and not view.grade_button.isEnabled()
    qtbot.waitUntil(lambda: "Judge call 1 of 11 done" in view.progress.format(), timeout=TIMEOUT_MS)
    with qtbot.waitSignal(view.graded, timeout=TIMEOUT_MS):
        qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
        judge._gate.set()
    assert judge.position == 2  # the call under way ended; no further judge call
    assert "cancelled" in view.message.text().lower()
    assert view.graph.nodes["PC"].data(NODE_SCORE) is None
    assert view.grade_button.isEnabled()


def test_scripted_chat_answer_is_taken_as_the_solution(qtbot: QtBot, context: AppContext) -> None:
    view = open_panel(qtbot, context, ScriptedChatModel(replies=[]))
    qtbot.mouseClick(view.take_chat, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(view.message.isVisible, timeout=TIMEOUT_MS)
    assert "no conversation" in view.message.text()

    answer = solution_for(view.picker.problem)  # type: ignore[arg-type]
    with ThreadPoolExecutor(1) as chat:  # the chat's own loop, as the app runs it: not the GUI's
        assert chat.submit(chat_about, context, ["A first answer.", answer]).result() == 2
    qtbot.mouseClick(view.take_chat, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.solution.toPlainText() == answer, timeout=TIMEOUT_MS)
    assert not view.message.isVisible()
    assert Path(context.store.folder, "conversations.sqlite").exists()


def test_scripted_solution_with_missing_stages_shows_the_penalty(
    qtbot: QtBot, context: AppContext
) -> None:
    present = tuple(code for code in STAGES if code not in ("AA", "PI"))
    replies = [verdict() for _ in present] + rubric_script()[-3:]  # absent stages are not judged
    judge = ScriptedChatModel(replies=replies)
    view = open_panel(qtbot, context, judge)
    view.solution.setPlainText(solution_for(view.picker.problem, present))  # type: ignore[arg-type]
    grade(qtbot, view)

    assert judge.remaining == 0 and "9 judge calls" in view.progress.format()
    for code in ("AA", "PI"):
        assert view.graph.nodes[code].data(NODE_SCORE) == 0.0
        assert view.graph.nodes[code].detail.text() == "missing"
    notes = [text for group, text, severity in error_items(view) if group == "Solution format"]
    assert any("AA Algebraic Accuracy is missing" in note for note in notes)
    assert "Missing-stage penalty: -4" in view.results.lowered.text()
    # S_base over the 8 stages (absent ones 0, and skipped as parents), minus 2.0 per absent stage
    scores = [view.graph.nodes[code].data(NODE_SCORE) for code in STAGES]
    assert f"{sum(scores) / 8 - 4.0:.2f}" in view.results.final.text()


def test_the_plugin_declares_the_panel(qtbot: QtBot, context: AppContext) -> None:
    from workbench.core.plugins import load_reference
    from workbench_plugins.judging import plugin

    spec = next(view for view in plugin.views if view.name == "judging.grading")
    assert "grade_solution" in spec.shows
    widget = load_reference(spec.factory)(context)
    qtbot.addWidget(widget)
    assert isinstance(widget, GradingView) and widget.judge_factory is None  # the settings model
    qtbot.waitUntil(lambda: widget.picker.problem is not None, timeout=TIMEOUT_MS)
    # with no judge given, the settings model judges: Ollama, unreachable in the tests
    widget.solution.setPlainText(solution_for(widget.picker.problem))  # type: ignore[arg-type]
    grade(qtbot, widget)
    said = widget.message.text()
    assert "The judge failed on" in said and "ConnectError" in said and "server running" in said
    assert f"the judge was {context.settings.model} (Ollama at http://127.0.0.1:9)" in said
    assert "No final score" in widget.results.final.text()
