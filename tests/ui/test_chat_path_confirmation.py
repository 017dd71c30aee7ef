"""The chat's /tool command asks before a tool uses a file outside the workspace, showing the
path, and calls the tool confirmed only on Yes (the same question the agent's interrupt asks)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.panel import ChatPanel


@pytest.fixture
def panel(context: AppContext, qtbot: QtBot) -> Iterator[ChatPanel]:
    if context.registry.get("convert_design_to_stl") is None:
        pytest.skip("the topopt plugin is not installed")
    # closed here, not by qtbot: qtbot deletes its widgets before this fixture's teardown, and
    # waiting for the model check's task below would then meet a deleted panel
    chat = ChatPanel(context)
    chat.show()
    yield chat
    qtbot.waitUntil(lambda: running_tasks() == 0)
    chat.close()


def test_a_tool_writing_outside_the_workspace_asks_with_the_path(
    panel: ChatPanel, qtbot: QtBot, tmp_path: Path
) -> None:
    store = panel.context.store
    npy = store.folder / "outputs" / "topopt" / "block.npy"
    npy.parent.mkdir(parents=True, exist_ok=True)
    block = np.zeros((50, 100))
    block[:, :40] = 1.0
    np.save(npy, block)
    stl = tmp_path / "block.stl"
    arguments = json.dumps({"npy_file_path": str(npy), "stl_file_path": str(stl)})

    panel.input.setText(f"/tool convert_design_to_stl {arguments}")
    qtbot.keyClick(panel.input, Qt.Key.Key_Return)
    box = panel.findChild(QMessageBox, "confirm-tool")
    assert box is not None and box.isVisible()
    assert f"write {stl.resolve()}" in box.text()
    assert store.tool_calls() == [] and not stl.exists()  # nothing before the person says yes

    with qtbot.waitSignal(panel.tool_finished, timeout=30000) as finished:
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert finished.args[0].ok, finished.args[0].error
    assert stl.is_file()
