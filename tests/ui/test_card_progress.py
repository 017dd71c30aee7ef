"""A running tool card shows the live progress of the jobs its call started (a thin bar and the
latest message, e.g. "optimize beams2d: iteration 12/100"), and nothing of it once the call ends.

The chat panel on the real agent runtime with a SCRIPTED model (language models cannot run here)
over the real topopt tools: a Beams2D optimisation, the real EngiBench job in a worker process.
The same for a call a person makes with /tool in the chat.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.agents.conftest import call, calls, handoff, say
from tests.support.artifacts import artifact_folder
from workbench.agents import AgentRuntime, ScriptedChatModel
from workbench.core.context import AppContext
from workbench.core.events import EventBus, JobProgress, JobStarted
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import ToolCard
from workbench.ui.chat.job_links import StartedJobs
from workbench.ui.chat.panel import ChatPanel

RUN_TIMEOUT_MS = 180_000  # a spawned worker imports EngiBench first; the machine may be busy
# long enough that its iterations are seen at ~10 repaints a second, short enough for a test
BEAM = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0, "max_iter": 150}
OPTIMISE = [
    handoff("topopt", "Optimise a beam."),
    calls(call("optimize_design", {"problem_type": "beams2d", "problem_config": BEAM})),
    say("Optimised."),
    say("The beam is optimised."),
]


@pytest.fixture
def make_panel(context: AppContext, qtbot: QtBot) -> Iterator[Callable[..., ChatPanel]]:
    """A shown chat panel over the topopt tools and a scripted model with `replies`."""
    context.plugins.plugins = {"topopt": context.plugins.plugins["topopt"]}
    panels: list[ChatPanel] = []

    def make(replies: list[dict[str, Any]]) -> ChatPanel:
        runtime = AgentRuntime(context, ScriptedChatModel(replies=replies), model_name="scripted")
        panel = ChatPanel(context, runtime=runtime)
        qtbot.addWidget(panel)
        panel.resize(440, 640)
        panel.show()
        qtbot.waitUntil(lambda: running_tasks() == 0)
        panels.append(panel)
        return panel

    yield make
    for panel in panels:
        if shiboken6.isValid(panel):
            panel.stop()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=RUN_TIMEOUT_MS)


def the_card(panel: ChatPanel, tool: str) -> ToolCard | None:
    cards = [c for c in panel.view.items() if isinstance(c, ToolCard) and c.tool == tool]
    return cards[0] if cards else None


def send(qtbot: QtBot, panel: ChatPanel, text: str) -> None:
    panel.input.setText(text)
    qtbot.keyClick(panel.input, Qt.Key.Key_Return)


def progress_of(panel: ChatPanel, tool: str) -> str:
    card = the_card(panel, tool)
    return card.progress.text() if card is not None else ""


def test_an_agents_optimisation_card_shows_its_jobs_progress_with_scripted_model(
    make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    panel = make_panel(OPTIMISE)
    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        send(qtbot, panel, "Optimise a beam.")
        qtbot.waitUntil(
            lambda: "iteration" in progress_of(panel, "optimize_design"), timeout=RUN_TIMEOUT_MS
        )
        card = the_card(panel, "optimize_design")
        assert card is not None and card.status == "running"
        shown = card.progress.text()
        assert shown.startswith("optimize beams2d: iteration ") and "/150" in shown, shown
        assert card.progress.bar.isVisible() and card.progress.bar.value() > 0
        assert shown in card.plain_text()
        panel.view.ensureWidgetVisible(card)
        qtbot.wait(150)  # the next repaint, for the picture
        panel.grab().save(str(artifact_folder("chat") / "running-card-progress.png"))

    assert finished.args[0].status == "done", finished.args[0].error
    assert card.status == "ok"
    assert card.progress.text() == "" and not card.progress.bar.isVisible()
    assert "optimize beams2d:" not in card.plain_text()  # the progress line is gone
    qtbot.wait(300)  # late repaints (already queued) must not bring it back
    assert card.progress.isHidden()


def test_a_tool_command_card_shows_its_jobs_progress(
    make_panel: Callable[..., ChatPanel], qtbot: QtBot
) -> None:
    panel = make_panel([])
    arguments = {"problem_type": "beams2d", "problem_config": BEAM}
    with qtbot.waitSignal(panel.tool_finished, timeout=RUN_TIMEOUT_MS) as finished:
        send(qtbot, panel, f"/tool optimize_design {json.dumps(arguments)}")
        qtbot.waitUntil(
            lambda: "iteration" in progress_of(panel, "optimize_design"), timeout=RUN_TIMEOUT_MS
        )
        card = the_card(panel, "optimize_design")
        assert card is not None and card.status == "running"
        assert card.progress.bar.isVisible()

    assert finished.args[0].ok, finished.args[0].error
    assert card.status == "ok" and card.progress.text() == ""
    assert not card.progress.bar.isVisible()


def test_a_card_made_after_its_calls_job_started_still_shows_the_jobs_progress(
    qtbot: QtBot,
) -> None:
    """An agent's card is made when ToolStarted reaches the GUI thread; on a busy machine the
    tool's job has published JobStarted before that. The card must still follow the job."""
    bus = EventBus()
    started = StartedJobs(bus)
    bus.publish(JobStarted(job_id="job-1", title="optimize beams2d", tool_call_id="call-1"))
    bus.publish(JobStarted(job_id="job-2", title="someone else's", tool_call_id="call-2"))
    card = ToolCard("optimize_design", {}, bus=bus, started=started)
    qtbot.addWidget(card)
    card.show()
    card.follow_jobs("call-1")
    bus.publish(JobProgress(job_id="job-1", fraction=0.25, message="iteration 3/12"))
    qtbot.waitUntil(lambda: "iteration 3/12" in card.progress.text())
    assert card.progress.text().startswith("optimize beams2d")
    bus.publish(JobProgress(job_id="job-2", fraction=0.5, message="iteration 9/12"))
    qtbot.wait(250)  # two repaints: the other call's job never shows here
    assert "iteration 3/12" in card.progress.text()
    started.close()
