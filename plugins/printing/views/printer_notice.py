"""The printer panel's notice row: a problem that needs the person (no key, no keyring, a printer
that does not answer), said once, with the ways on as buttons: the Printers dialog to store the
key, or a key kept for this session only."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from workbench.ui.settings_form import ERROR_STYLE


class PrinterNotice(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("printer-notice")
        self.text = QLabel()
        self.text.setObjectName("printer-notice-text")
        self.text.setWordWrap(True)
        self.text.setStyleSheet(ERROR_STYLE)
        self.text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.enter_key = QPushButton("Enter the key…")
        self.enter_key.setObjectName("printer-enter-key")
        self.enter_key.setToolTip("Open Printers… at this printer: the key goes to the keyring")
        self.session_key = QPushButton("Use a key for this session…")
        self.session_key.setObjectName("printer-session-key")
        self.session_key.setToolTip("Kept in memory until the app closes, written nowhere")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.text, 1)
        row.addWidget(self.enter_key)
        row.addWidget(self.session_key)
        self.hide()

    def show_problem(self, text: str, *, enter_key: bool, session_key: bool) -> None:
        self.text.setText(text)
        self.text.setToolTip(text)
        self.enter_key.setVisible(enter_key)
        self.session_key.setVisible(session_key)
        self.show()

    def clear(self) -> None:
        self.text.clear()
        self.hide()
