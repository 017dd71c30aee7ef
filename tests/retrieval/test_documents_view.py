"""The Documents view as a person uses it: add a folder of real files through the file dialog
(a progress bar, a bad file said in words while the others index), search, open a hit at its
page, open the original, delete (asked first), cancel a long import, and follow the agent's
add_document. Real PDFs (generated with matplotlib), the real index in the workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QStandardItemModel
from PySide6.QtWidgets import QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from tests.retrieval.conftest import ok
from tests.support.artifacts import artifact_folder
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.sample_pdf import fact, write_fact_pdf
from workbench_plugins.retrieval.views import DocumentsView, documents_view

WAIT_MS = 60_000
VIEW_SIZE = (560, 620)  # the view area of a 1024x700 window between the chat and the ledger


@pytest.fixture
def view(app: Any, qtbot: QtBot) -> Iterator[DocumentsView]:
    app.settings = app.settings.with_plugin("retrieval", RetrievalSettings(dense="off"))
    widget = documents_view(app)
    assert isinstance(widget, DocumentsView)
    qtbot.addWidget(widget)
    widget.resize(*VIEW_SIZE)
    widget.show()
    qtbot.waitExposed(widget)
    idle(qtbot, widget)
    yield widget
    idle(qtbot, widget)


def idle(qtbot: QtBot, view: DocumentsView) -> None:
    qtbot.waitUntil(lambda: view.runner.running == 0 and not view.adding, timeout=WAIT_MS)


def choose_in_dialog(qtbot: QtBot, view: DocumentsView, button: Any, path: Path) -> None:
    """Click Add…, pick `path` in the (non-native) dialog, accept."""
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = view.dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    dialog.selectFile(str(path))
    dialog.accept()


def folder_with_a_bad_file(workspace: Path) -> Path:
    docs = workspace / "docs"
    docs.mkdir()
    write_fact_pdf(docs / "report.pdf", 9)
    (docs / "notes.md").write_text("# Loads\n\nThe bracket carries 4 kN in bending.\n")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a PDF")
    (docs / "empty.txt").write_bytes(b"")
    return docs


def test_add_a_folder_search_and_read_a_hit_at_its_page(
    view: DocumentsView, workspace: Path, qtbot: QtBot
) -> None:
    docs = folder_with_a_bad_file(workspace)
    seen: list[tuple[int, int, bool]] = []
    view.progressed.connect(
        lambda done, total, _f: seen.append((done, total, view.progress_row.isVisible()))
    )

    choose_in_dialog(qtbot, view, view.add_folder_button, docs)
    idle(qtbot, view)

    assert seen and all(shown for *_, shown in seen)  # the bar was up while it indexed
    assert (4, 4, True) in seen  # four readable files, each counted
    assert not view.progress_row.isVisible()  # and gone when done
    assert sorted(view.sources()) == ["docs/notes.md", "docs/report.pdf"]
    report = view.report_label.text()
    assert report.startswith("2 indexed, 2 could not be read")
    assert "docs/broken.pdf: Cannot index broken.pdf: not a readable PDF" in report
    assert "docs/empty.txt: Cannot index empty.txt: the file is empty (0 bytes)" in report
    assert "Traceback" not in report
    row = view.sources().index("docs/report.pdf")
    cells = [view.table.item(row, column) for column in range(1, 4)]
    assert [cell.text() if cell else "" for cell in cells] == ["pdf", "9", "9"]

    # only keyword search runs here: dense and fused are disabled and say why
    model = view.search.mode.model()
    assert isinstance(model, QStandardItemModel)
    assert [model.item(i).isEnabled() for i in range(3)] == [True, False, False]
    assert "off in settings" in str(view.search.mode.itemData(1, Qt.ItemDataRole.ToolTipRole))

    qtbot.keyClicks(view.search.query, "SPX0007 failed")
    qtbot.keyClick(view.search.query, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.search.hits.count() > 0, timeout=WAIT_MS)
    first = view.search.hit_texts()[0]
    assert "docs/report.pdf, page 7</b>" in first
    assert '<span style="background: #fff3b0; font-weight: bold;">SPX0007</span>' in first
    assert "failed</span>" in first

    hits = view.search.hits
    qtbot.mouseClick(
        hits.viewport(), Qt.MouseButton.LeftButton, pos=hits.visualItemRect(hits.item(0)).center()
    )
    qtbot.waitUntil(lambda: view.passage.place.text() == "docs/report.pdf, page 7", timeout=WAIT_MS)
    page = view.passage.text.toPlainText()
    assert "Lab report, page 7" in page and " ".join(fact(7).split()[:6]) in " ".join(page.split())
    assert "fff3b0" in view.passage.text.toHtml() and "ddf4ff" in view.passage.text.toHtml()
    view.grab().save(str(artifact_folder("retrieval") / "documents_view_hit.png"))

    opened = Opened()
    QDesktopServices.setUrlHandler("file", opened, "open")  # type: ignore[arg-type]  # stubs say bytes; PySide6 takes str
    try:
        qtbot.mouseClick(view.passage.open_button, Qt.MouseButton.LeftButton)
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [(u.toLocalFile(), u.fragment()) for u in opened.urls] == [
        (str(docs / "report.pdf"), "page=7")
    ]


class Opened(QObject):
    """Where "Open in system viewer" sends the URL: Qt's own hook for a scheme's handler."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_delete_asks_first(view: DocumentsView, workspace: Path, qtbot: QtBot) -> None:
    write_fact_pdf(workspace / "old.pdf", 2)
    choose_in_dialog(qtbot, view, view.add_file_button, workspace / "old.pdf")
    idle(qtbot, view)
    assert view.sources() == ["old.pdf"]
    assert not view.delete_button.isEnabled()  # nothing selected yet

    view.table.selectRow(0)
    qtbot.mouseClick(view.delete_button, Qt.MouseButton.LeftButton)
    question = view.question
    assert isinstance(question, QMessageBox) and question.isVisible()
    assert "Remove old.pdf from the document index?" in question.text()
    assert "The file itself is kept" in question.text()
    qtbot.mouseClick(question.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
    idle(qtbot, view)
    assert view.sources() == ["old.pdf"]  # No kept it

    qtbot.mouseClick(view.delete_button, Qt.MouseButton.LeftButton)
    question = view.question
    assert isinstance(question, QMessageBox)
    qtbot.mouseClick(question.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.sources() == [], timeout=WAIT_MS)
    assert (workspace / "old.pdf").is_file()  # only the index forgot it
    assert view.count_label.text() == "0 documents, 0 passages"


def test_cancel_stops_a_folder_import_between_files(
    view: DocumentsView, workspace: Path, qtbot: QtBot
) -> None:
    many = workspace / "many"
    many.mkdir()
    for number in range(6):
        write_fact_pdf(many / f"report{number}.pdf", 25)

    def cancel_at_first_file(done: int, _total: int, _file: str) -> None:
        if done == 0 and view.cancel_button.isEnabled():
            qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)

    view.progressed.connect(cancel_at_first_file)
    choose_in_dialog(qtbot, view, view.add_folder_button, many)
    idle(qtbot, view)

    report = view.report
    assert report is not None and report.cancelled
    assert 1 <= len(report.done) < 6
    assert view.report_label.text().startswith("Cancelled: ")
    assert len(view.sources()) == len(report.done)  # what was done stays


def test_the_list_follows_the_agents_add_document(
    view: DocumentsView, app: Any, workspace: Path, qtbot: QtBot
) -> None:
    (workspace / "spec.md").write_text("# Spec\n\nThe shaft is 40 mm in diameter.\n")
    ok(app, "add_document", path="spec.md")
    qtbot.waitUntil(lambda: view.sources() == ["spec.md"], timeout=WAIT_MS)
    ok(app, "delete_document", path="spec.md")
    qtbot.waitUntil(lambda: view.sources() == [], timeout=WAIT_MS)
