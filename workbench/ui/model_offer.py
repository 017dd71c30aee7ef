"""The offer shown when the model in use finds no server: the embedded model in one click, with
what it is good for — or, when it is not installed, how to get it. Used under the chat's model
picker and in the first-run guide."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from workbench.agents.defaults import EMBEDDED_INSTALL, EMBEDDED_NAME, EMBEDDED_PURPOSE
from workbench.ui.model_status import ModelsReport

OFFER_STYLE = (
    "QFrame#{name} {{ background: #fff8c5; border: 1px solid #d4a72c; border-radius: 4px; }}"
    " QPushButton {{ padding: 1px 8px; }}"
)
# what the embedded model is good for, without the part the offer's headline already says
EMBEDDED_GOOD_FOR = EMBEDDED_PURPOSE.split(": ", 1)[-1]
USE_EMBEDDED = "Use the embedded model"


def offer_text(report: ModelsReport) -> str:
    """What the offer says about `report` (empty when the model in use has its server)."""
    if not report.current_unreachable:
        return ""
    headline = f"{report.current} cannot run: {report.current_status}."
    if report.offers_embedded:
        return (
            f"{headline} The embedded model ({EMBEDDED_NAME}) needs no server: {EMBEDDED_GOOD_FOR}."
        )
    return (
        f"{headline} Start the server or pick another model. To try the workbench without a "
        f"server, install the embedded model: {EMBEDDED_INSTALL}"
    )


class ModelOffer(QFrame):
    """Hidden unless the model in use finds no server; `accepted` when the button is clicked.
    objectNames: `<prefix>-offer`, `<prefix>-offer-text`, `<prefix>-use-embedded`."""

    accepted = Signal()

    def __init__(self, prefix: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"{prefix}-offer")
        self.setStyleSheet(OFFER_STYLE.format(name=self.objectName()))
        self.text = QLabel()
        self.text.setObjectName(f"{prefix}-offer-text")
        self.text.setWordWrap(True)
        font = self.text.font()
        font.setPointSizeF(font.pointSizeF() * 0.9)  # compact: the conversation needs the height
        self.text.setFont(font)
        self.text.setToolTip(f"The embedded model ({EMBEDDED_NAME}): {EMBEDDED_PURPOSE}.")
        self.button = QPushButton(USE_EMBEDDED)
        self.button.setObjectName(f"{prefix}-use-embedded")
        self.button.setToolTip(f"Switch the chat to llamacpp:embedded ({EMBEDDED_NAME})")
        self.button.clicked.connect(self.accepted)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addStretch(1)
        row.addWidget(self.button)
        # compact: a narrow chat dock must keep most of its height for the conversation
        layout = QVBoxLayout(self)
        layout.setContentsMargins(5, 2, 5, 3)
        layout.setSpacing(2)
        layout.addWidget(self.text)
        layout.addLayout(row)
        self.hide()

    def show_report(self, report: ModelsReport | None) -> None:
        text = offer_text(report) if report is not None else ""
        self.text.setText(text)
        self.button.setVisible(report is not None and report.offers_embedded)
        self.setVisible(bool(text))
