"""The printer panel's printer choice: configured printers first, then USB ports that are likely
printers (usb/port_scan.py), then the other ports, marked unlikely; a name, port or PrusaLink URL
may also be typed. Only a configured printer or a likely port is preselected: a machine's
built-in /dev/ttyS0 never is.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QWidget

from workbench_plugins.printing.usb.port_scan import (
    PrinterChoice,
    SerialPort,
    list_serial_ports,
    printer_choices,
)

ADDRESS_ROLE = Qt.ItemDataRole.UserRole
KIND_ROLE = Qt.ItemDataRole.UserRole + 1
PLACEHOLDER = "Choose a printer: a name, a serial port or a PrusaLink URL"


class PrinterPicker(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setObjectName("printer-choice")
        self.setToolTip("A printer's name, a serial port or a PrusaLink URL")
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        line = self.lineEdit()
        if line is not None:
            line.setPlaceholderText(PLACEHOLDER)
        self.choices: list[PrinterChoice] = []

    def fill(self, profiles: list[tuple[str, str]], ports: list[SerialPort] | None = None) -> None:
        """List the printers and ports (`ports`: the machine's, when not given); what was
        typed or chosen stays chosen."""
        kept = self.currentText()
        self.choices = printer_choices(profiles, list_serial_ports() if ports is None else ports)
        self.blockSignals(True)
        self.clear()
        previous = ""
        for choice in self.choices:
            if previous and choice.kind != previous:
                self.insertSeparator(self.count())
            self.addItem(choice.label)
            row = self.count() - 1
            self.setItemData(row, choice.address, ADDRESS_ROLE)
            self.setItemData(row, choice.kind, KIND_ROLE)
            self.setItemData(row, choice.detail, Qt.ItemDataRole.ToolTipRole)
            previous = choice.kind
        self.setCurrentIndex(-1)
        self.blockSignals(False)
        if kept:
            self.setEditText(kept)
        elif self.choices and self.choices[0].kind != "unlikely":
            self.setCurrentIndex(0)
        else:
            self.setEditText("")  # nothing likely: the person chooses
        self.editTextChanged.emit(self.currentText())

    @property
    def chosen(self) -> str:
        """The chosen printer's name or address ("" when none): a listed one's, else the text."""
        text = self.currentText().strip()
        row = self.findText(text, Qt.MatchFlag.MatchExactly)
        address = self.itemData(row, ADDRESS_ROLE) if row >= 0 else None
        return str(address) if address else text

    def kind_of(self, text: str) -> str:
        """ "configured", "likely" or "unlikely" for a listed choice; "" for a typed one."""
        row = self.findText(text.strip(), Qt.MatchFlag.MatchExactly)
        kind = self.itemData(row, KIND_ROLE) if row >= 0 else None
        return str(kind) if kind else ""
