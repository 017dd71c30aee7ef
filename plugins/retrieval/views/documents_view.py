"""The Documents view: the indexed documents, adding files and folders (on a worker, with a
progress bar and Cancel), deleting (asked first), searching, and reading a hit's page.

All index work runs on worker threads (`Runner`); the GUI thread only shows results. A file that
cannot be indexed is said in words under the buttons and the others go on. The list follows the
index when anyone changes it: this view, the agent's add_document / delete_document (ToolCalled),
or a folder import elsewhere (DocumentsIndexing).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.events import EventBus
from workbench.ui.naming import named
from workbench_plugins.retrieval.index.database import DocumentInfo
from workbench_plugins.retrieval.index.loaders import SUFFIXES
from workbench_plugins.retrieval.index.search import Hit
from workbench_plugins.retrieval.tools.documents import DocumentsIndexing
from workbench_plugins.retrieval.views.backend import AddReport, DocumentsBackend, Modes, PageText
from workbench_plugins.retrieval.views.passage_pane import PassagePane
from workbench_plugins.retrieval.views.runner import Failed, Runner
from workbench_plugins.retrieval.views.search_pane import SearchPane

COLUMNS = ("Name", "Type", "Pages", "Passages", "Indexed")
SOURCE = "documents-view"  # DocumentsIndexing events this view publishes itself
REPORT_LINES = 4  # failures listed under the buttons; the rest in the tooltip
FILTER = "Documents (" + " ".join(f"*{suffix}" for suffix in sorted(SUFFIXES)) + ")"


def parse_target(target: str) -> tuple[str, int | None]:
    """ "docs/x.pdf#page=7" -> ("docs/x.pdf", 7); a target without a page -> (target, None)."""
    source, mark, page = target.rpartition("#page=")
    if mark and page.isdigit():
        return source, int(page)
    return target, None


class DocumentsView(QWidget):
    progressed = Signal(int, int, str)  # files done, files in all, file (from the worker)

    def __init__(self, backend: DocumentsBackend, bus: EventBus | None = None) -> None:
        super().__init__()
        self.setObjectName("documents-view")
        self.backend = backend
        self.bus = bus
        self.runner = Runner(self)
        self.documents: list[DocumentInfo] = []
        self.adding = False
        self.searching = 0  # searches (and model loads) not yet answered
        self.report: AddReport | None = None
        self.question: QMessageBox | None = None
        self.dialog: QFileDialog | None = None
        self._cancel = threading.Event()
        self._page_request = 0  # only the latest page asked for is shown
        self._wanted_source = ""  # a source to select once the list has arrived
        self.progressed.connect(self._show_progress)
        self._build()
        self.destroyed.connect(self.runner.stop)
        self.refresh()
        self.runner.run(self.backend.modes, self._show_modes, lambda e: None)

    # -- widgets --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.add_file_button = named(QPushButton("Add file…"), "documents-add-file")
        self.add_file_button.setToolTip("Index PDF, Markdown, text or HTML files")
        self.add_file_button.clicked.connect(self.choose_files)
        self.add_folder_button = named(QPushButton("Add folder…"), "documents-add-folder")
        self.add_folder_button.setToolTip("Index every such file in a folder and its subfolders")
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.delete_button = named(QPushButton("Delete"), "documents-delete")
        self.delete_button.setToolTip(
            "Remove the selected document from the index (the file stays)"
        )
        self.delete_button.setEnabled(False)
        self.delete_button.clicked.connect(self.ask_delete)
        self.count_label = named(QLabel(), "documents-count")
        self.count_label.setStyleSheet("color: #57606a;")
        buttons = QHBoxLayout()
        for button in (self.add_file_button, self.add_folder_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.count_label)

        self.progress = named(QProgressBar(), "documents-progress")
        self.progress.setFormat("%v of %m files")
        self.progress_label = named(QLabel(), "documents-progress-file")
        self.cancel_button = named(QPushButton("Cancel"), "documents-cancel")
        self.cancel_button.setToolTip("Stop after the file being read; files done so far stay")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress_row = QWidget()
        row = QHBoxLayout(self.progress_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.progress, 1)
        row.addWidget(self.progress_label, 1)
        row.addWidget(self.cancel_button)
        self.progress_row.hide()
        self.report_label = named(QLabel(), "documents-add-report")
        self.report_label.setWordWrap(True)
        self.report_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.report_label.hide()

        self.table = self._table()
        self.search = SearchPane(self)
        self.search.search_requested.connect(self.run_search)
        self.search.hit_chosen.connect(self.open_hit)
        self.passage = PassagePane(self)
        splitter = named(QSplitter(Qt.Orientation.Vertical), "documents-splitter")
        for part in (self.table, self.search, self.passage):
            splitter.addWidget(part)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 4)
        splitter.setStretchFactor(2, 4)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(buttons)
        layout.addWidget(self.progress_row)
        layout.addWidget(self.report_label)
        layout.addWidget(splitter, 1)

    def _table(self) -> QTableWidget:
        table = named(QTableWidget(0, len(COLUMNS)), "documents-table")
        table.setHorizontalHeaderLabels(COLUMNS)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.setMinimumHeight(90)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        table.itemSelectionChanged.connect(
            lambda: self.delete_button.setEnabled(bool(self.selected_source()) and not self.adding)
        )
        return table

    # -- the list -------------------------------------------------------------------------------
    def refresh(self) -> None:
        self.runner.run(self.backend.documents, self._show_documents, self._failed("list"))

    def _show_documents(self, documents: list[DocumentInfo]) -> None:
        # a citation opened before the list arrived asked for its source: select it now
        selected = self._wanted_source or self.selected_source()
        self._wanted_source = ""
        self.documents = documents
        self.table.setRowCount(len(documents))
        for row, info in enumerate(documents):
            source = self.backend.source(info.path)
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.indexed_at))
            cells = (source, info.kind, str(info.pages or "—"), str(info.chunks), when)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(f"{info.path}\n{info.size:,} bytes")
                self.table.setItem(row, column, item)
            if source == selected:
                self.table.selectRow(row)
        total = sum(info.chunks for info in documents)
        plural = "" if len(documents) == 1 else "s"
        self.count_label.setText(f"{len(documents)} document{plural}, {total:,} passages")

    def selected_source(self) -> str:
        rows = self.table.selectionModel().selectedRows()
        item = self.table.item(rows[0].row(), 0) if rows else None
        return item.text() if item is not None else ""

    def sources(self) -> list[str]:
        """The documents as listed (sources, as the tools print them)."""
        return [self.backend.source(info.path) for info in self.documents]

    # -- adding ---------------------------------------------------------------------------------
    def choose_files(self) -> None:
        self._choose(QFileDialog.FileMode.ExistingFiles, "Add documents")

    def choose_folder(self) -> None:
        self._choose(QFileDialog.FileMode.Directory, "Add a folder of documents")

    def _choose(self, mode: QFileDialog.FileMode, title: str) -> None:
        """A window-modal dialog that does not block: its choice arrives as `filesSelected`."""
        dialog = QFileDialog(self, title, str(self.backend.workspace), FILTER)
        dialog.setFileMode(mode)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog)  # the same on every system
        if mode == QFileDialog.FileMode.Directory:
            dialog.setOption(QFileDialog.Option.ShowDirsOnly)
        dialog.filesSelected.connect(lambda files: self.add_paths([Path(f) for f in files]))
        dialog.finished.connect(dialog.deleteLater)
        self.dialog = dialog
        dialog.open()

    def add_paths(self, paths: Sequence[Path]) -> None:
        if self.adding or not paths:
            return
        self.adding = True
        self._cancel.clear()
        self.report_label.hide()
        for button in (self.add_file_button, self.add_folder_button, self.delete_button):
            button.setEnabled(False)
        self.progress.setRange(0, 0)  # busy until the files are counted
        self.progress_label.setText("Looking for documents…")
        self.cancel_button.setEnabled(True)
        self.progress_row.show()
        chosen = list(paths)

        def add() -> AddReport:
            return self.backend.add(chosen, self._report_progress, self._cancel.is_set)

        self.runner.run(add, self._added, self._add_failed, long=True)

    def _report_progress(self, done: int, total: int, file: Path) -> None:
        """On the worker: the bar follows (queued signal), other listeners hear the event."""
        self.progressed.emit(done, total, str(file))
        if self.bus is not None:
            self.bus.publish(
                DocumentsIndexing(source=SOURCE, done=done, total=total, file=str(file))
            )

    def _show_progress(self, done: int, total: int, file: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        verb = "Indexed" if done == total else "Reading"
        self.progress_label.setText(f"{verb} {Path(file).name}")
        self.progress_label.setToolTip(file)
        self.progress_row.show()

    def cancel(self) -> None:
        self._cancel.set()
        self.cancel_button.setEnabled(False)
        self.progress_label.setText("Cancelling after this file…")

    def _added(self, report: AddReport) -> None:
        self._end_adding()
        self.report = report
        failures = [f"• {self.backend.source(path)}: {why}" for path, why in report.failed]
        shown = failures[:REPORT_LINES]
        if len(failures) > REPORT_LINES:
            shown.append(f"… and {len(failures) - REPORT_LINES} more (hover to see all)")
        self.report_label.setText("\n".join([report.summary(), *shown]))
        self.report_label.setToolTip("\n".join(failures))
        colour = "#cf222e" if report.failed else "#1a7f37"
        self.report_label.setStyleSheet(f"color: {colour};")
        self.report_label.show()
        self.refresh()

    def _add_failed(self, error: BaseException) -> None:
        self._end_adding()
        self.report_label.setText(_words(error))
        self.report_label.setStyleSheet("color: #cf222e;")
        self.report_label.show()
        self.refresh()

    def _end_adding(self) -> None:
        self.adding = False
        self.progress_row.hide()
        self.add_file_button.setEnabled(True)
        self.add_folder_button.setEnabled(True)
        self.delete_button.setEnabled(bool(self.selected_source()))

    # -- deleting -------------------------------------------------------------------------------
    def ask_delete(self) -> None:
        source = self.selected_source()
        if not source:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Delete from the index",
            f"Remove {source} from the document index?\n\nThe file itself is kept; add it "
            "again to search it.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setObjectName("documents-delete-question")

        def answered(result: int) -> None:
            self.question = None
            box.deleteLater()
            if result == QMessageBox.StandardButton.Yes:
                self.delete(source)

        box.finished.connect(answered)
        self.question = box
        box.open()

    def delete(self, source: str) -> None:
        def deleted(_passages: int) -> None:
            if self.passage.shown is not None and self.passage.shown.source == source:
                self.passage.clear()
            self.refresh()

        self.runner.run(lambda: self.backend.delete(source), deleted, self._failed("delete"))

    # -- searching and reading ------------------------------------------------------------------
    def _show_modes(self, modes: Modes) -> None:
        self.search.set_modes(modes.dense, modes.reason)

    def run_search(self, query: str, mode: str) -> None:
        if self.backend.model_to_load(mode):  # seconds: said, not "Searching…" all along

            def loaded(_none: None) -> None:
                self.searching -= 1
                self.search.model_loaded(mode)
                self._search(query, mode)

            def not_loaded(error: BaseException) -> None:
                self.searching -= 1
                self.search.model_loaded(mode)
                self.search.show_error(_words(error))

            self.searching += 1
            self.search.loading_model()
            self.runner.run(self.backend.load_model, loaded, not_loaded)
            return
        self._search(query, mode)

    def _search(self, query: str, mode: str) -> None:
        self.searching += 1

        def found(hits: list[Hit]) -> None:
            self.searching -= 1
            sources = {info.path: self.backend.source(info.path) for info in self.documents}
            self.search.show_hits(query, mode, hits, sources)

        def failed(error: BaseException) -> None:
            self.searching -= 1
            self.search.show_error(_words(error))

        self.runner.run(lambda: self.backend.search(query, mode), found, failed)

    # -- closing the window ---------------------------------------------------------------------
    def closing_stops(self) -> list[str]:
        """What closing the window would stop (the window asks first)."""
        said = ["adding documents to the index"] if self.adding else []
        return said + (["a document search"] if self.searching else [])

    def stop_for_close(self) -> None:
        """The window closes: stop adding after the file under way, drop searches; the workers
        are daemon threads, so nothing here keeps the process alive."""
        self._cancel.set()
        self.runner.stop()

    def open_hit(self, hit: Hit) -> None:
        passage = hit.passage
        self.show_place(
            self.backend.source(passage.path), passage.page, passage.section, passage.text
        )

    def show_target(self, target: str) -> None:
        """A citation's target ("docs/x.pdf#page=7", from the chat): show that page."""
        source, page = parse_target(target)
        self.select_source(source)
        self.show_place(source, page, "", "")

    def select_source(self, source: str) -> None:
        for row, listed in enumerate(self.sources()):
            if listed == source:
                self.table.selectRow(row)
                return
        self._wanted_source = source  # not listed yet (the view has just opened)

    def show_place(self, source: str, page: int | None, section: str, passage: str) -> None:
        self._page_request += 1
        request = self._page_request
        where = source + (f", page {page}" if page else "")
        self.passage.loading(where)
        query = self.search.last_query

        def read() -> PageText:
            return self.backend.page_text(source, page, section, passage)

        def shown(text: PageText) -> None:
            if request != self._page_request:
                return  # a later pick replaced this one
            if not text.text:
                self.passage.show_error(where, text.note or "Nothing to show.")
                return
            self.passage.show_page(text, self.backend.path(source), passage, query)

        def failed(error: BaseException) -> None:
            if request == self._page_request:
                self.passage.show_error(where, _words(error))

        self.runner.run(read, shown, failed)

    # -- the index changed elsewhere --------------------------------------------------------------
    def indexing_elsewhere(self, event: DocumentsIndexing) -> None:
        if event.source == SOURCE or self.adding:
            return
        self._show_progress(event.done, event.total, event.file)
        self.cancel_button.setEnabled(False)  # the agent's import: stopped from the chat
        if event.done >= event.total:
            self.progress_row.hide()
            self.refresh()

    def _failed(self, action: str) -> Failed:
        def show(error: BaseException) -> None:
            self.report_label.setText(f"Could not {action}: {_words(error)}")
            self.report_label.setStyleSheet("color: #cf222e;")
            self.report_label.show()

        return show


def _words(error: BaseException) -> str:
    """An error as a person reads it: the message and what to do, without a traceback."""
    message = getattr(error, "message", "") or str(error) or type(error).__name__
    hint = getattr(error, "hint", "")
    return f"{message} {hint}".strip()
