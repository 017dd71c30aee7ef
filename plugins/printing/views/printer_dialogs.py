"""The printer panel's questions, all non-modal (opened with `open()`; the GUI thread never waits):
confirm a physical action, give a reason to print past the gate, resume from a layer instead, and
a PrusaLink key kept for this session only."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox, QWidget

YES_NO = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No


def confirmation_box(parent: QWidget, question: str) -> QMessageBox:
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Confirm printer action",
        f"{question}\n\nThis moves a real machine.",
        YES_NO,
        parent,
    )
    box.setObjectName("confirm-printer-action")
    return box


def override_dialog(parent: QWidget, refusal: str) -> QInputDialog:
    dialog = QInputDialog(parent)
    dialog.setObjectName("print-override")
    dialog.setWindowTitle("The print gate refused this file")
    dialog.setLabelText(f"{refusal}\n\nTo print anyway, say why (it is recorded):")
    return dialog


def resume_offer_box(
    parent: QWidget, printer: str, refusal: str, offer: dict[str, Any]
) -> QMessageBox:
    """The host refused to resume; it offers to restart from a layer, with these steps."""
    steps = "\n".join(f"{number}. {step}" for number, step in enumerate(offer.get("steps", []), 1))
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        "Resume from a layer?",
        f"{printer} cannot simply resume: {refusal}\n\n"
        f"It can resume from layer {offer.get('layer')} (Z {offer.get('z')} mm) instead:\n"
        f"{steps}\n\nResume from layer {offer.get('layer')}? This moves a real machine.",
        YES_NO,
        parent,
    )
    box.setObjectName("resume-offer")
    return box


def session_key_dialog(parent: QWidget, printer: str, what: str) -> QInputDialog:
    """Ask for `printer`'s key (`what`: "API key" or "digest password") to use until the app
    closes: kept in memory only, never written, so it works without a keyring."""
    dialog = QInputDialog(parent)
    dialog.setObjectName("printer-session-key-dialog")
    dialog.setWindowTitle("Key for this session only")
    dialog.setLabelText(
        f"The PrusaLink {what} of {printer}, for this session only.\n\n"
        "It stays in this app's memory until it closes and is written nowhere. To keep it, "
        "enter it in Printers… (stored in the system keyring)."
    )
    dialog.setTextEchoMode(QLineEdit.EchoMode.Password)
    return dialog
