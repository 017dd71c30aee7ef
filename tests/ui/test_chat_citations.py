"""A citation in the chat ("docs/report.pdf, page 7") is a link that opens the Documents view at
that page: in the answer, and on the search_documents card.

The whole main window with a SCRIPTED model (language models cannot run here) over the real
retrieval tools and a real generated PDF indexed in the workspace.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.agents.conftest import call, calls, handoff, say, write_script
from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.async_loop import running_tasks
from workbench.ui.chat.cards import MessageBubble, ToolCard
from workbench.ui.chat.citations import citations, link_markdown, target_of
from workbench.ui.main_window import MainWindow
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.sample_pdf import write_fact_pdf
from workbench_plugins.retrieval.views import DocumentsView

RUN_TIMEOUT_MS = 120_000
ANSWER = "Specimen SPX0007 failed at 1259 N (docs/report.pdf, page 7)."
SEARCH_AND_ANSWER = [
    handoff("retrieval", "Find where SPX0007 failed."),
    calls(call("search_documents", {"query": "SPX0007 failed", "mode": "keyword"})),
    say(ANSWER),
    say(ANSWER),
]


def test_citations_are_found_as_the_search_tool_prints_them() -> None:
    assert citations("[1] docs/report.pdf, page 7, section '' (score 3)") == [
        ("docs/report.pdf", 7)
    ]
    assert citations("see `My_Notes/a-b.md`, page 2 and docs/x.pdf p. 11") == [
        ("My_Notes/a-b.md", 2),
        ("docs/x.pdf", 11),
    ]
    assert citations("page 7 of the report") == []
    linked = link_markdown("As shown (docs/report.pdf, page 7).\n```\ndocs/report.pdf, page 7\n```")
    assert "[docs/report.pdf, page 7](cite:docs/report.pdf#page=7)" in linked
    assert linked.endswith("```\ndocs/report.pdf, page 7\n```")  # code is left alone
    assert target_of("cite:docs/my%20report.pdf#page=3") == "docs/my report.pdf#page=3"


def documents_view(window: MainWindow) -> DocumentsView:
    widget = window.plugin_docks["documents"].widget()
    assert isinstance(widget, DocumentsView)
    return widget


def test_a_citation_in_the_answer_opens_the_documents_view_at_its_page(
    context: AppContext, tmp_path: Path, open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    context.settings = context.settings.with_plugin("retrieval", RetrievalSettings(dense="off"))
    context.settings.model = write_script(tmp_path, SEARCH_AND_ANSWER)
    workspace = Path(context.store.folder)
    (workspace / "docs").mkdir()
    write_fact_pdf(workspace / "docs" / "report.pdf", 9)
    with ThreadPoolExecutor(1) as worker:  # the GUI's loop runs on this thread
        added = worker.submit(
            context.registry.call, "add_document", {"path": "docs"}, caller="test"
        ).result()
    assert added.ok, added.error
    window = open_window(context)
    window.resize(1024, 700)
    panel = window.chat_dock.panel
    with qtbot.waitSignal(panel.run_finished, timeout=RUN_TIMEOUT_MS) as finished:
        panel.input.setText("Where did SPX0007 fail?")
        qtbot.keyClick(panel.input, Qt.Key.Key_Return)
    assert finished.args[0].status == "done", finished.args[0].error

    card = next(c for c in panel.view.items() if isinstance(c, ToolCard))
    assert card.tool == "search_documents" and card.citations.isVisible()
    assert 'href="cite:docs/report.pdf#page=7"' in card.citations.text()
    answer = [b for b in panel.view.items() if isinstance(b, MessageBubble) and b.final][-1]
    assert answer.text() == ANSWER  # the conversation keeps the words; only the label links
    assert "(cite:docs/report.pdf#page=7)" in answer.body.text()
    assert "documents" not in window.plugin_docks

    # the person reaches the link with Tab and opens it with Enter
    answer.body.setFocus()
    qtbot.keyClick(answer.body, Qt.Key.Key_Tab)
    qtbot.keyClick(answer.body, Qt.Key.Key_Return)

    qtbot.waitUntil(lambda: "documents" in window.plugin_docks, timeout=10_000)
    view = documents_view(window)
    qtbot.waitUntil(lambda: view.passage.place.text() == "docs/report.pdf, page 7", timeout=30_000)
    assert "Specimen SPX0007" in view.passage.text.toPlainText()
    assert view.selected_source() == "docs/report.pdf"
    qtbot.waitUntil(lambda: view.runner.running == 0)
    window.grab().save(str(artifact_folder("ui") / "chat_citation_documents_view.png"))

    # the card's link to another page moves the open view there
    card.citations.setFocus()
    qtbot.keyClick(card.citations, Qt.Key.Key_Tab)
    first_link = target_of(card.citations.text().split('href="')[1].split('"')[0])
    qtbot.keyClick(card.citations, Qt.Key.Key_Return)
    source, page = first_link.split("#page=")
    qtbot.waitUntil(lambda: view.passage.place.text() == f"{source}, page {page}", timeout=30_000)
    qtbot.waitUntil(lambda: running_tasks() == 0 and view.runner.running == 0, timeout=30_000)
