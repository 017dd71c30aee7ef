"""The command log view: earlier commands from the store and live ones, newest first, with their
exact command, folder, result, duration and output; Stop ends a running command. A screenshot is
kept (tests/artifacts/shell_command_log.png)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from tests.shell.conftest import allow, run
from tests.support.artifacts import artifact_folder
from workbench_plugins.shell.views import CommandLog


@pytest.fixture
def history(app: Any, workspace: Path) -> Any:
    """Two commands run before the view opens (an earlier session's)."""
    (workspace / "outputs").mkdir()
    (workspace / "outputs" / "beam_report.txt").write_text(
        "Beams2D run 4\nvolfrac 0.40\nrmin 1.5\ncompliance 212.7\n"
    )
    assert run(app, ["ls", "-l", "outputs"]).ok
    assert run(app, ["grep", "-n", "volfrac", "beam_report.txt"], cwd="outputs").ok
    return app


@pytest.fixture
def view(qtbot: QtBot, history: Any) -> Iterator[CommandLog]:
    widget = CommandLog(history)
    qtbot.addWidget(widget)
    widget.resize(900, 520)
    widget.show()
    yield widget
    widget.close()


def rows(view: CommandLog) -> list[list[str]]:
    table = view.table
    return [
        [row(view, i).text(c) for c in range(table.columnCount())]
        for i in range(table.topLevelItemCount())
    ]


def row(view: CommandLog, index: int) -> QTreeWidgetItem:
    item = view.table.topLevelItem(index)
    assert item is not None, f"no row {index}"
    return item


def test_log_shows_runs_newest_first_and_stops_a_running_one(
    qtbot: QtBot, view: CommandLog, workspace: Path
) -> None:
    qtbot.waitUntil(lambda: len(rows(view)) == 2)
    first = rows(view)
    assert first[0][1] == "grep -n volfrac beam_report.txt" and first[1][1] == "ls -l outputs"
    assert first[0][4] == "outputs" and first[1][4] == "." and first[0][2] == "exit 0"
    view.table.setCurrentItem(row(view, 0))
    assert "2:volfrac 0.40" in view.output.toPlainText()
    assert not view.stop_button.isEnabled()  # a finished command cannot be stopped

    allow(view.context, "sleep")
    outcomes: list[Any] = []
    worker = threading.Thread(target=lambda: outcomes.append(run(view.context, ["sleep", "300"])))
    worker.start()
    qtbot.waitUntil(lambda: len(rows(view)) == 3 and rows(view)[0][2] == "running...")
    assert rows(view)[0][1] == "sleep 300" and view.stop_button.isEnabled()
    assert view.grab().save(str(artifact_folder() / "shell_command_log_running.png"))

    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    worker.join(30)
    assert outcomes and outcomes[0].result["state"].startswith("stopped by a person")
    qtbot.waitUntil(lambda: rows(view)[0][2].startswith("stopped by a person"))
    assert not view.stop_button.isEnabled()
    assert "$ sleep 300" in view.output.toPlainText()

    view.table.setCurrentItem(row(view, 1))
    assert view.grab().save(str(artifact_folder() / "shell_command_log.png"))
