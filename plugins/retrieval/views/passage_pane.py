"""The passage pane: the page (or section) a hit cites, the hit shaded and the query's words
marked, with a button that opens the original in the system's viewer (PDFs at the page)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.naming import named
from workbench_plugins.retrieval.views.backend import PageText
from workbench_plugins.retrieval.views.highlight import page_html, query_pattern

EMPTY = "Pick a hit, or a citation in the chat, to read its page here."


def viewer_url(path: Path, page: int | None) -> QUrl:
    """The file's URL; a PDF's with `#page=N`, which PDF viewers and browsers open at."""
    url = QUrl.fromLocalFile(str(path))
    if page and path.suffix.lower() == ".pdf":
        url.setFragment(f"page={page}")
    return url


class PassagePane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.place = named(QLabel(EMPTY), "documents-passage-place")
        self.place.setWordWrap(True)
        self.place.setStyleSheet("font-weight: bold;")
        self.note = named(QLabel(), "documents-passage-note")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #9a6700;")
        self.note.hide()
        self.open_button = named(QPushButton("Open in system viewer"), "documents-open-original")
        self.open_button.setToolTip("Open the original file in the program your system uses")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_original)
        self.text = named(QTextBrowser(), "documents-passage-text")
        self.text.setOpenLinks(False)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.place, 1)
        top.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.note)
        layout.addWidget(self.text, 1)
        self.shown: PageText | None = None
        self.path: Path | None = None
        self.last_opened: QUrl | None = None  # what "Open in system viewer" asked for

    def loading(self, where: str) -> None:
        self.place.setText(f"{where} — reading…")

    def show_page(self, page: PageText, path: Path, passage: str, query: str) -> None:
        self.shown, self.path = page, path
        where = page.source + (f", page {page.page}" if page.page else "")
        where += f", section '{page.section}'" if page.section and not page.page else ""
        self.place.setText(where)
        self.place.setToolTip(str(path))
        self.note.setText(page.note)
        self.note.setVisible(bool(page.note))
        body, start = page_html(page.text, passage, query_pattern(query))
        self.text.setHtml(body)
        if start >= 0:
            self.text.scrollToAnchor("hit")
        else:
            self.text.moveCursor(QTextCursor.MoveOperation.Start)
        self.open_button.setEnabled(path.is_file())

    def show_error(self, where: str, text: str) -> None:
        self.shown = None
        self.place.setText(where)
        self.note.setText(text)
        self.note.show()
        self.text.clear()

    def clear(self) -> None:
        self.shown, self.path = None, None
        self.place.setText(EMPTY)
        self.note.hide()
        self.text.clear()
        self.open_button.setEnabled(False)

    def open_original(self) -> None:
        if self.path is None:
            return
        url = viewer_url(self.path, self.shown.page if self.shown else None)
        self.last_opened = url
        if not QDesktopServices.openUrl(url):
            self.note.setText(f"No program opened {self.path.name}. Open it yourself: {self.path}")
            self.note.show()
