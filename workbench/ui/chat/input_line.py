"""The chat's input: a few lines tall and as wide as the panel, like a chat tool's.

Enter sends (`send_requested`), Shift+Enter breaks the line. Up and Down recall earlier entries
like a shell, but only from the first or last line, so they still move the cursor inside a
message of several lines. Slash commands complete from a popup (QCompleter, driven by hand: it
only drives QLineEdit and QComboBox by itself). The box grows with its text up to MAX_LINES.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, QStringListModel, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QCompleter, QFrame, QPlainTextEdit, QSizePolicy, QWidget

MIN_LINES = 3  # room to read back a sentence before sending it
MAX_LINES = 10  # then it scrolls: the conversation above keeps most of the height
SEND_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class ChatInput(QPlainTextEdit):
    send_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.history: list[str] = []
        self._position = 0
        self.setTabChangesFocus(True)  # Tab leaves the box, as in a form
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setToolTip("Enter sends; Shift+Enter starts a new line; Up recalls earlier entries")
        self.textChanged.connect(self._fit_height)
        self._completions = QStringListModel(self)
        self.completer_ = QCompleter(self._completions, self)
        self.completer_.setWidget(self)
        self.completer_.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer_.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer_.activated.connect(self._complete)
        self._fit_height()

    # -- QLineEdit's words, which the panel and tests use ---------------------------------------
    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:  # QLineEdit's spelling
        self.setPlainText(text)
        self.moveCursor(QTextCursor.MoveOperation.End)

    def set_completions(self, words: list[str]) -> None:
        self._completions.setStringList(words)

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)

    # -- height ---------------------------------------------------------------------------------
    def _height_for(self, lines: int) -> int:
        margins = self.contentsMargins()
        document = self.document().documentMargin() * 2
        frame = self.frameWidth() * 2 + margins.top() + margins.bottom()
        return int(self.fontMetrics().lineSpacing() * lines + document + frame)

    def _fit_height(self) -> None:
        # visual lines (wrapped), not paragraphs: a long sentence grows the box too
        lines = 0
        block = self.document().begin()
        while block.isValid():
            layout = block.layout()
            lines += max(1, layout.lineCount() if layout is not None else 1)
            block = block.next()
        self.setFixedHeight(self._height_for(max(MIN_LINES, min(MAX_LINES, lines))))

    def sizeHint(self) -> QSize:  # Qt override
        return QSize(super().sizeHint().width(), self._height_for(MIN_LINES))

    def minimumSizeHint(self) -> QSize:  # Qt override: the fixed height is the minimum too
        return QSize(super().minimumSizeHint().width(), self.height())

    def resizeEvent(self, event: object) -> None:  # Qt override
        super().resizeEvent(event)  # type: ignore[arg-type]
        self._fit_height()  # a narrower box wraps into more lines

    # -- keys -----------------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        popup = self.completer_.popup()
        if (
            popup is not None
            and popup.isVisible()
            and event.key() in (*SEND_KEYS, Qt.Key.Key_Escape, Qt.Key.Key_Tab)
        ):
            event.ignore()  # the completer's popup takes these
            return
        key, shift = event.key(), event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if key in SEND_KEYS and not shift:
            self.send_requested.emit()
            return
        if key in SEND_KEYS:  # Shift+Enter: a line break, never a paragraph's Qt-specific one
            self.insertPlainText("\n")
            return
        if key == Qt.Key.Key_Up and self.history and self._on_first_line():
            self._recall(-1)
            return
        if key == Qt.Key.Key_Down and self.history and self._on_last_line():
            self._recall(+1)
            return
        super().keyPressEvent(event)
        self._offer_completions()

    def _on_first_line(self) -> bool:
        cursor = self.textCursor()
        return cursor.blockNumber() == 0 and cursor.block().layout().lineForTextPosition(
            cursor.positionInBlock()
        ).lineNumber() in (0, -1)

    def _on_last_line(self) -> bool:
        cursor = self.textCursor()
        block = cursor.block()
        line = block.layout().lineForTextPosition(cursor.positionInBlock()).lineNumber()
        return not block.next().isValid() and line >= block.layout().lineCount() - 1

    def _recall(self, step: int) -> None:
        self._position = max(0, min(len(self.history), self._position + step))
        at_end = self._position == len(self.history)
        self.setText("" if at_end else self.history[self._position])

    # -- completion -----------------------------------------------------------------------------
    def _offer_completions(self) -> None:
        text = self.toPlainText()
        popup = self.completer_.popup()
        if popup is None:  # Qt makes one on first use; it is there once the completer is set up
            return
        if not text.startswith("/") or "\n" in text or self._completions.rowCount() == 0:
            popup.hide()
            return
        self.completer_.setCompletionPrefix(text)
        if self.completer_.completionCount() == 0 or self.completer_.currentCompletion() == text:
            popup.hide()
            return
        popup.setCurrentIndex(self.completer_.completionModel().index(0, 0))
        area = self.cursorRect()
        area.setWidth(max(240, self.width() // 2))
        self.completer_.complete(area)

    def _complete(self, text: str) -> None:
        self.setText(text)
