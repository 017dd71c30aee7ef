"""Acceptance 7: a task started from the Modelica tasks view runs with a scripted model over the
real harness and rumoca, and its turns, limits and ledger appear live (screenshot under
modelica-task-view/ in the test artifact folder). A bad task JSON is refused in words."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
import pytest
from pydantic import PrivateAttr
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.modelica.conftest import MODELS
from tests.support.artifacts import artifact_folder
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.agents import ScriptedChatModel
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench_plugins.modelica.views import TaskView
from workbench_plugins.modelica.views.task_brief import BriefDialog

GOOD = (MODELS / "RCCharge.mo").read_text()
FAULTY = GOOD.replace("i = (V - vc) / R;", "i = (V - vc) / Rr;")  # undeclared variable
INVARIANT = "charges_to_source"
USAGE = {"input_tokens": 600, "output_tokens": 40}  # per call: 640 logical tokens
SHOWN_TIMEOUT_S = 30.0


def public_task(**changes: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "task_id": "wb_repair_electrical_90",
        "benchmark": "Modelica Agent Workflow Benchmark",
        "benchmark_version": "v0.2-preview",
        "split": "hidden_official_v0.2",
        "task_type": "model_repair",
        "difficulty": "easy",
        "model_name": "RCCharge",
        "workflow_goal": "Repair RCCharge so that it checks, simulates and charges to 5 V.",
        "verification": {
            "tool": "OpenModelica",
            "check_model": True,
            "simulate": {"stop_time": 10, "intervals": 500},
        },
        "acceptance": ["vc reaches 5 V within 1 % by t = 10 s"],
        "initial_model": FAULTY,
    }
    task.update(changes)
    return task


def reply(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "args": args}], "usage": USAGE}


REPAIR_SCRIPT = [
    reply(
        "add_invariant",
        name=INVARIANT,
        proposition="the capacitor charges to the source voltage within 10 s",
        observables=["vc(10)"],
        condition={"target": 5.0, "tolerance": 0.05},
    ),
    reply("check_model", model="RCCharge"),
    reply("write_file", path="RCCharge.mo", text=GOOD),
    reply("simulate", model="RCCharge", stop_time=10, intervals=500),
    reply("record_evidence", invariant=INVARIANT, adjudication="supported", sim="sim1"),
    reply("submit", note="declared the resistance: Rr was a typo for R"),
]


@dataclass
class Shown:
    """What the view showed after one of its ledger reads."""

    turn: int
    turns_text: str
    time_text: str
    simulations_text: str
    tokens_text: str
    statuses: dict[str, str]
    finished: bool


class GatedScript(ScriptedChatModel):
    """A scripted model that gives its next reply only once the view has shown the last turn,
    so every turn's figures and ledger are seen while the run is still going."""

    _shown_turns: list[int] = PrivateAttr(default_factory=lambda: [0])  # set on the GUI thread

    def _next_reply(self) -> dict[str, Any]:
        deadline = time.monotonic() + SHOWN_TIMEOUT_S
        while self._shown_turns[0] < self.position and time.monotonic() < deadline:
            time.sleep(0.02)
        return super()._next_reply()


@pytest.fixture
def view(qtbot: QtBot, context: AppContext) -> Iterator[TaskView]:
    context.settings.plugins["modelica"] = {"inline_max_intervals": 1_000_000}
    task_view = TaskView(context)
    qtbot.addWidget(task_view)
    task_view.resize(640, 560)
    task_view.show()
    qtbot.waitExposed(task_view)
    yield task_view
    task_view.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=10000)


def write_task(folder: Path, data: dict[str, Any] | str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "task.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


def test_scripted_repair_task_started_from_the_view_shows_turns_limits_and_ledger_live(
    view: TaskView, qtbot: QtBot, tmp_path: Path
) -> None:
    shown: list[Shown] = []
    live_picture = artifact_folder("modelica-task-view") / "repair_live.png"
    live_picture.unlink(missing_ok=True)
    model = GatedScript(replies=REPAIR_SCRIPT, source="repair script")

    def record() -> None:  # on the GUI thread, after each ledger read
        progress, table = view.progress, view.ledger.table
        if progress is None:
            return
        statuses = {
            table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())
        }
        shown.append(
            Shown(
                progress.turn,
                view.turns_bar.format(),
                view.time_bar.format(),
                view.simulations_bar.format(),
                view.tokens.text(),
                statuses,
                progress.finished,
            )
        )
        if progress.turn == 5 and progress.state == "running" and not live_picture.exists():
            assert view.grab().save(str(live_picture))  # proven, not yet submitted
        model._shown_turns[0] = max(model._shown_turns[0], progress.turn)  # an int: atomic

    view.ledger.read.connect(record)
    view.model_factory = lambda: model
    view.open_task_file(write_task(tmp_path / "tasks", public_task()))

    qtbot.waitUntil(
        lambda: view.progress is not None and view.progress.finished and running_tasks() == 0,
        timeout=60000,
    )
    progress = view.progress
    assert progress is not None
    assert progress.status == "submitted", (progress.status, progress.reason, view.message.text())
    live = [s for s in shown if not s.finished]
    assert {1, 2, 3, 4, 5} <= {s.turn for s in live}  # every turn seen while the run went on
    first = next(s for s in live if s.turn == 1)
    assert first.turns_text == "1 / 100 turns"
    assert "/ 900 s (+120 s grace" in first.time_text
    assert first.statuses == {INVARIANT: "open"}  # the invariant, stated but not yet proven
    assert first.tokens_text.startswith("640 logical tokens")
    simulated = next(s for s in live if s.turn == 4)
    assert simulated.simulations_text == "1 simulations (no limit for repair tasks)"
    assert simulated.statuses == {INVARIANT: "open"}  # a new candidate: no evidence for it yet
    proven = next(s for s in live if s.turn == 5)
    assert proven.statuses == {INVARIANT: "supported"}  # the evidence, live, before the submit
    record = view.handle.record if view.handle is not None else None
    assert record is not None and record.model_calls == len(REPAIR_SCRIPT)
    assert view.turns_bar.format() == f"{record.turns} / 100 turns"  # the run's own count
    assert view.tokens.text().startswith(f"{6 * 640:,} logical tokens")
    assert view.state.text().startswith("Submitted")
    assert not view.cancel_button.isEnabled()
    assert view.ledger.readiness.text().endswith("is ready.")
    submission = json.loads(Path(progress.submission_path).read_text())
    assert submission["final_model"].strip() == GOOD.strip()
    assert live_picture.exists()
    picture = artifact_folder("modelica-task-view") / "repair_submitted.png"
    assert view.grab().save(str(picture))


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (public_task(initial_model=None), "initial_model"),
        ({**public_task(), "hidden_reference": "x"}, "hidden_reference"),
        ('{"task_id": "wb_repair_x_01", ', "not valid JSON"),
    ],
    ids=["missing-field", "foreign-field", "broken-json"],
)
def test_a_bad_task_json_is_refused_with_the_field_and_what_to_do(
    view: TaskView, qtbot: QtBot, tmp_path: Path, content: Any, named: str
) -> None:
    if isinstance(content, dict):
        content = {k: v for k, v in content.items() if v is not None}
    view.open_task_file(write_task(tmp_path / "tasks", content))
    qtbot.waitUntil(lambda: view.message.isVisible(), timeout=10000)
    message = view.message.text()
    assert named in message and "task.json" in message
    assert "Fix" in message  # what to do
    assert view.progress is None  # nothing started
    if named == "initial_model":
        picture = artifact_folder("modelica-task-view") / "bad_task.png"
        assert view.grab().save(str(picture))


def test_the_brief_dialog_keeps_a_bad_brief_open_and_says_why(qtbot: QtBot) -> None:
    dialog = BriefDialog()
    qtbot.addWidget(dialog)
    dialog.model_name.setText("2tank")
    dialog.brief.setPlainText("A tank filled at 2 l/s that drains through a valve.")
    dialog.accept()
    assert dialog.task is None and not dialog.problem.isHidden()
    assert "'2tank' is not a Modelica name" in dialog.problem.text()
    dialog.model_name.setText("TankLevel")
    dialog.stop_time.setValue(20)
    dialog.accept()
    assert dialog.task is not None and dialog.task.profile == "generation"
    assert dialog.task.model_name == "TankLevel" and dialog.task.stop_time == 20


def test_scripted_run_is_cancelled_from_the_view(
    view: TaskView, qtbot: QtBot, tmp_path: Path
) -> None:
    model = GatedScript(replies=[reply("check_model", model="RCCharge")] * 40, source="busy")
    view.ledger.read.connect(
        lambda: model._shown_turns.__setitem__(0, view.progress.turn if view.progress else 0)
    )
    view.model_factory = lambda: model
    view.open_task_file(write_task(tmp_path / "tasks", public_task()))
    qtbot.waitUntil(lambda: view.progress is not None and view.progress.turn >= 2, timeout=30000)
    assert view.cancel_button.isEnabled()
    qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.progress is not None and view.progress.finished, timeout=30000)
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=10000)
    assert view.progress.status != "submitted" and view.progress.turn < 10
    assert "cancel" in view.state.text().lower(), view.state.text()
    assert not view.cancel_button.isEnabled()


def test_scripted_plain_loop_started_from_the_view_submits_its_last_model(
    view: TaskView, qtbot: QtBot, tmp_path: Path
) -> None:
    script = [
        reply("write_file", path="RCCharge.mo", text=GOOD),
        reply("check_model", model="RCCharge"),
        {"content": "Fixed: Rr was a typo for R.", "usage": USAGE},
    ]
    view.model_factory = lambda: ScriptedChatModel(replies=script, source="plain script")
    view.mode_box.setCurrentText("plain")
    view.open_task_file(write_task(tmp_path / "tasks", public_task()))
    qtbot.waitUntil(
        lambda: view.progress is not None and view.progress.finished and running_tasks() == 0,
        timeout=60000,
    )
    progress = view.progress
    assert progress is not None and progress.mode == "plain"
    assert progress.status == "submitted", (progress.status, progress.reason)
    assert "plain loop" in view.heading.text()
    assert "no ledger in the plain loop" in view.ledger.readiness.text()
    submission = json.loads(Path(progress.submission_path).read_text())
    assert submission["final_model"].strip() == GOOD.strip()
