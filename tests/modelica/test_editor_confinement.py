"""Issue 28: the Modelica editor follows the file rule. A path outside the workspace is not
written, and no tool runs on it, until the person approved the question that names it; a file in
the workspace is saved and checked without a question; '..' is refused outright."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tests.rigs.gui  # noqa: F401  (first: skips, or fails in CI, without PySide6/pyqtgraph)

# isort: split
from PySide6.QtWidgets import QPushButton

from tests.modelica.conftest import MODELS
from tests.ui.conftest import gui_loop  # noqa: F401  (a qasync loop for start_task)
from workbench.core.events import ToolCalled
from workbench.ui.async_loop import running_tasks
from workbench_plugins.modelica.views import EditorView

SOURCE = (MODELS / "RCCharge.mo").read_text()


def editor_on(qtbot: Any, context: Any, path: Path | str) -> EditorView:
    editor = EditorView(context)
    qtbot.addWidget(editor)
    editor.show()
    editor.path.setText(str(path))
    editor.model.setText("RCCharge")
    editor.editor.setPlainText(SOURCE)
    return editor


def answer(qtbot: Any, editor: EditorView, button: str) -> str:
    """Press Approve or Deny on the question the editor asked; returns what it said."""
    qtbot.waitUntil(lambda: editor.question is not None and editor.question.isVisible())
    assert editor.question is not None
    said = editor.question.informativeText()
    editor.question.findChild(QPushButton, button).click()
    qtbot.waitUntil(lambda: editor.question is None)
    return said


def test_an_outside_path_is_not_written_or_run_without_a_yes(  # type: ignore[no-untyped-def]
    qtbot, context, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "RCCharge.mo"
    outside.parent.mkdir()
    calls: list[ToolCalled] = []
    unsubscribe = context.bus.subscribe(ToolCalled, calls.append)
    editor = editor_on(qtbot, context, outside)
    editor.save_button.click()
    said = answer(qtbot, editor, "deny")
    assert f"write {outside}" in said  # the question names the path
    assert not outside.exists() and "Declined" in editor.status.text()
    editor.simulate_button.click()
    said = answer(qtbot, editor, "deny")
    assert f"write {outside}" in said and "simulate" in said
    assert not outside.exists() and calls == []  # neither saved nor simulated
    # the person's yes: saved, then checked with that confirmation
    editor.check_button.click()
    answer(qtbot, editor, "approve")
    qtbot.waitUntil(lambda: editor.last_result is not None and running_tasks() == 0, timeout=30000)
    unsubscribe()
    assert outside.read_text() == SOURCE
    assert editor.last_result is not None and editor.last_result["ok"], editor.last_result
    assert [call.tool for call in calls] == ["check_model"]


def test_a_workspace_file_is_saved_and_checked_without_a_question(  # type: ignore[no-untyped-def]
    qtbot, context
) -> None:
    editor = editor_on(qtbot, context, "models/RCCharge.mo")
    (Path(context.store.folder) / "models").mkdir()
    editor.check_button.click()
    qtbot.waitUntil(lambda: editor.last_result is not None and running_tasks() == 0, timeout=30000)
    assert editor.question is None
    assert (Path(context.store.folder) / "models" / "RCCharge.mo").read_text() == SOURCE
    assert editor.last_result is not None and editor.last_result["ok"], editor.last_result


def test_a_climbing_path_is_refused_and_nothing_is_written(qtbot, context) -> None:  # type: ignore[no-untyped-def]
    editor = editor_on(qtbot, context, "../escape.mo")
    editor.save_button.click()
    editor.check_button.click()
    assert editor.question is None and "'..' is not allowed" in editor.status.text()
    assert not (Path(context.store.folder).parent / "escape.mo").exists()
