"""The search row and its hits: a query, a mode (keyword, dense, fused: only the ones that run
now are enabled, the others say why not), and the hits, each a preview with the query's words
marked. Picking a hit (click or keys) asks for its page (`hit_chosen`)."""

from __future__ import annotations

import html

from PySide6.QtCore import (
    QElapsedTimer,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QPainter, QStandardItemModel, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from workbench.ui.naming import named
from workbench_plugins.retrieval.index.search import Hit
from workbench_plugins.retrieval.views.highlight import preview, query_pattern

MODES = ("keyword", "dense", "fused")
MODE_TIPS = {
    "keyword": "Words as written (SQLite FTS5, BM25 ranking); always available",
    "dense": "By meaning (an embedding model)",
    "fused": "Keyword and dense ranks combined (reciprocal rank fusion)",
}
HIT_ROLE = Qt.ItemDataRole.UserRole + 1
MODEL_LOAD_S = 25  # the offline MiniLM's first load on two cores (embeddings.OfflineEmbedder)
Index = QModelIndex | QPersistentModelIndex


class HtmlDelegate(QStyledItemDelegate):
    """Rows of rich text (the hits' previews), wrapped to the list's width."""

    def _document(self, option: QStyleOptionViewItem, index: Index) -> QTextDocument:
        document = QTextDocument()
        document.setHtml(str(index.data(Qt.ItemDataRole.DisplayRole) or ""))
        document.setDocumentMargin(4)
        document.setTextWidth(max(100, option.rect.width()))
        return document

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        options = QStyleOptionViewItem(option)
        self.initStyleOption(options, index)
        options.text = ""
        style = options.widget.style() if options.widget else None
        if style is not None:
            style.drawControl(
                QStyle.ControlElement.CE_ItemViewItem, options, painter, options.widget
            )
        document = self._document(option, index)
        painter.save()
        painter.translate(option.rect.topLeft())
        document.drawContents(painter)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        width = option.widget.viewport().width() if option.widget else 300  # type: ignore[attr-defined]
        option.rect.setWidth(width)
        document = self._document(option, index)
        return QSize(width, int(document.size().height()) + 2)


class SearchPane(QWidget):
    search_requested = Signal(str, str)  # query, mode
    hit_chosen = Signal(object)  # Hit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.query = named(QLineEdit(), "documents-query")
        self.query.setPlaceholderText("Search the documents (words, or a question with dense)")
        self.query.setClearButtonEnabled(True)
        self.query.returnPressed.connect(self.submit)
        self.mode = named(QComboBox(), "documents-mode")
        for mode in MODES:
            self.mode.addItem(mode, mode)
        self.search_button = named(QPushButton("Search"), "documents-search")
        self.search_button.clicked.connect(self.submit)
        self.status = named(QLabel(), "documents-search-status")
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #57606a;")
        # the first dense or fused search loads the model first: said, with the time it takes
        self.loading_bar = named(QProgressBar(), "documents-model-loading")
        self.loading_bar.setRange(0, 0)  # busy: the load reports no fraction
        self.loading_bar.setMaximumHeight(8)
        self.loading_bar.setTextVisible(False)
        self.loading_bar.hide()
        self._loading_clock = QElapsedTimer()
        self._loading_tick = QTimer(self)
        self._loading_tick.setInterval(500)
        self._loading_tick.timeout.connect(self._say_loading)
        self.hits = named(QListWidget(), "documents-hits")
        self.hits.setItemDelegate(HtmlDelegate(self.hits))
        # a light selection: the previews' dark text and marks stay readable on it
        self.hits.setStyleSheet(
            "QListWidget::item { border-bottom: 1px solid #eaeef2; }"
            " QListWidget::item:selected { background: #ddf4ff; }"
        )
        self.hits.setWordWrap(True)
        self.hits.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.hits.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.hits.currentItemChanged.connect(self._current_changed)
        self.hits.itemActivated.connect(lambda item: self.hit_chosen.emit(item.data(HIT_ROLE)))
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.query, 1)
        row.addWidget(self.mode)
        row.addWidget(self.search_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.loading_bar)
        layout.addWidget(self.hits, 1)
        self.last_query = ""
        self.set_modes(False, "checking whether an embedding model answers…")

    def set_modes(self, dense: bool, reason: str) -> None:
        """Enable the modes that run now; a disabled one's tooltip says why not."""
        model = self.mode.model()
        for row, mode in enumerate(MODES):
            enabled = mode == "keyword" or dense
            tip = MODE_TIPS[mode] + ("" if enabled else f". Not available: {reason}")
            if mode != "keyword" and enabled:
                tip += f". Uses {reason}"
            if isinstance(model, QStandardItemModel):
                item = model.item(row)
                if item is not None:
                    item.setEnabled(enabled)
            self.mode.setItemData(row, tip, Qt.ItemDataRole.ToolTipRole)
        if not dense and self.mode.currentData() != "keyword":
            self.mode.setCurrentIndex(0)
        if dense and self.mode.currentData() == "keyword" and not self.last_query:
            self.mode.setCurrentIndex(MODES.index("fused"))
        self.mode.setToolTip(
            "Search mode. " + ("Dense and fused use " if dense else "Keyword only: ") + reason
        )

    def submit(self) -> None:
        query = self.query.text().strip()
        if not query:
            self.status.setText("Type what to look for.")
            return
        self.last_query = query
        self.status.setText(f"Searching ({self.mode.currentData()})…")
        self.search_requested.emit(query, str(self.mode.currentData()))

    def loading_model(self) -> None:
        """The search waits for the model to load: say so, with the seconds so far."""
        self._loading_clock.start()
        self.loading_bar.show()
        self._loading_tick.start()
        self._say_loading()

    def _say_loading(self) -> None:
        seconds = self._loading_clock.elapsed() // 1000
        self.status.setText(
            f"Loading the search model (first search only, about {MODEL_LOAD_S} s)… {seconds} s"
        )

    def model_loaded(self, mode: str) -> None:
        self._loading_tick.stop()
        self.loading_bar.hide()
        self.status.setText(f"Searching ({mode})…")

    def show_hits(self, query: str, mode: str, hits: list[Hit], source_of: dict[str, str]) -> None:
        self.hits.clear()
        pattern = query_pattern(query)
        for rank, hit in enumerate(hits, start=1):
            passage = hit.passage
            where = source_of.get(passage.path, passage.path)
            where += f", page {passage.page}" if passage.page else ""
            where += f", section '{passage.section}'" if passage.section else ""
            text = (
                f"<b>[{rank}] {html.escape(where)}</b> "
                f"<span style='color:#57606a'>score {hit.score:.3g}</span><br>"
                + preview(passage.text, pattern)
            )
            item = QListWidgetItem(text)
            item.setData(HIT_ROLE, hit)
            item.setToolTip(where)
            self.hits.addItem(item)
        found = f"{len(hits)} passage{'s' if len(hits) != 1 else ''}" if hits else "Nothing found"
        self.status.setText(f"{found} for “{query}” ({mode}).")

    def show_error(self, text: str) -> None:
        self.hits.clear()
        self.status.setText(text)

    def _current_changed(self, item: QListWidgetItem | None, _previous: object) -> None:
        if item is not None:
            self.hit_chosen.emit(item.data(HIT_ROLE))

    def hit_texts(self) -> list[str]:
        """The hits as shown (HTML), for tests."""
        return [str(self.hits.item(i).text()) for i in range(self.hits.count())]
