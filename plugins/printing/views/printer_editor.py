"""The printers dialog's form for one printer: connection, access, and its key in the keyring.

The form reads a `PrinterDraft` in and writes it back (`load`, `store`); it shows the fields the
chosen connection needs (a serial port and speed, or a PrusaLink URL with its authentication and
storage), each with its error underneath. The key or password field is never filled from the
keyring: it says whether the entry is stored, and names that entry.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.secrets import SERVICE, SecretUnavailable, get_secret, has_session_secret
from workbench.ui.settings_form import ERROR_STYLE, INVALID_STYLE
from workbench_plugins.printing.config import prusalink_secret_key
from workbench_plugins.printing.views.printer_drafts import PrinterDraft, serial_ports

NOTE_STYLE = "color: #57606a;"  # quieter than the fields, still easy to read
RESULT_STYLES = {"ok": "color: #1a7f37;", "warn": "color: #9a6700;", "fail": "color: #cf222e;"}
SPEEDS = ("115200", "250000", "57600")
AUTH_MODES = (
    ("api_key", "API key (X-Api-Key: MK3 with PrusaLink)"),
    ("digest", "User and password (HTTP digest: MINI, MK4, XL)"),
)


def note_label(text: str = "", style: str = NOTE_STYLE) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet(style)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class PrinterEditor(QWidget):
    """The fields of one printer. `edited` fires when its name or address changes."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("printer-editor")
        self.errors: dict[str, QLabel] = {}  # draft field -> the label under its editor
        self.address_errors: dict[str, QLabel] = {}  # transport -> under the port or the URL
        self.fields: dict[str, QWidget] = {}
        self.cells: dict[str, QWidget] = {}
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)

        self.name = QLineEdit(placeholderText="e.g. MK3S in the lab (empty: its address)")
        self.transport = QComboBox()
        self.transport.addItem("USB serial cable", "serial")
        self.transport.addItem("PrusaLink (network)", "prusalink")
        self.port = QComboBox(editable=True)
        self.port.setLineEdit(QLineEdit(placeholderText="/dev/ttyACM0"))
        self.rescan = QPushButton("Rescan")
        self.rescan.setToolTip("Look for serial ports again (after plugging the printer in)")
        self.rescan.clicked.connect(self.find_ports)
        self.url = QLineEdit(placeholderText="http://192.168.1.20")
        self.baudrate = QComboBox(editable=True)
        self.baudrate.addItems(SPEEDS)
        self.auth = QComboBox()
        for mode, text in AUTH_MODES:
            self.auth.addItem(text, mode)
        self.user = QLineEdit(placeholderText="maker")
        self.storage = QLineEdit(placeholderText="empty: the one the printer reports")
        self.secret = QLineEdit(echoMode=QLineEdit.EchoMode.Password)
        self.secret_entry = note_label()
        self.test_button = QPushButton("Test connection")
        self.test_result = note_label(style="")

        self._add_rows()
        self.find_ports()
        self.name.textEdited.connect(self.edited)
        self.url.textEdited.connect(self._address_edited)
        self.port.editTextChanged.connect(self._address_edited)
        self.transport.currentIndexChanged.connect(self._show_rows)
        self.auth.currentIndexChanged.connect(self._show_rows)
        self.url.editingFinished.connect(self.show_secret_state)
        self.auth.currentIndexChanged.connect(self.show_secret_state)
        self._show_rows()

    def _add_rows(self) -> None:
        port_row = QWidget()
        port_layout = QHBoxLayout(port_row)
        port_layout.setContentsMargins(0, 0, 0, 0)
        port_layout.addWidget(self.port, 1)
        port_layout.addWidget(self.rescan)
        self._row("Name", "name", self.name)
        self._row("Connection", "transport", self.transport)
        self._row("Serial port", "port", port_row, address_of="serial", field=self.port)
        self._row("Baud rate", "baudrate", self.baudrate)
        self._row("PrusaLink URL", "url", self.url, address_of="prusalink")
        self._row("Sign-in", "auth", self.auth)
        self._row("User", "user", self.user)
        self._row("Storage", "storage", self.storage)
        self._row("API key", "secret", self.secret).addWidget(self.secret_entry)
        test_row = QWidget()
        test_layout = QVBoxLayout(test_row)
        test_layout.setContentsMargins(0, 6, 0, 0)
        test_layout.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignLeft)
        test_layout.addWidget(self.test_result)
        self.form.addRow(test_row)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.form)
        layout.addStretch(1)

    def _row(
        self,
        title: str,
        key: str,
        widget: QWidget,
        *,
        address_of: str = "",
        field: QWidget | None = None,
    ) -> QVBoxLayout:
        """A labelled row: the widget, then its error (`address_of`: the address of that
        transport); `field` is the editor inside a composite `widget`. Returns the row's column,
        for more lines under it."""
        error = note_label(style=ERROR_STYLE)
        error.setObjectName(f"error:{key}")
        error.hide()
        cell = QWidget()
        column = QVBoxLayout(cell)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        column.addWidget(widget)
        column.addWidget(error)
        self.form.addRow(title, cell)
        target = field or widget
        target.setObjectName(f"printer:{key}")
        self.cells[key] = cell
        self.fields[key] = target
        if address_of:
            self.address_errors[address_of] = error
        else:
            self.errors[key] = error
        return column

    # -- showing what the connection needs ------------------------------------------------------
    @property
    def chosen_transport(self) -> str:
        return str(self.transport.currentData())

    def _show_rows(self) -> None:
        serial = self.chosen_transport == "serial"
        digest = self.auth.currentData() == "digest"
        for key, shown in {
            "port": serial,
            "baudrate": serial,
            "url": not serial,
            "auth": not serial,
            "user": not serial and digest,
            "storage": not serial,
            "secret": not serial,
        }.items():
            self.form.setRowVisible(self.cells[key], shown)
        label = self.form.labelForField(self.cells["secret"])
        if isinstance(label, QLabel):
            label.setText("Password" if digest else "API key")
        self.show_secret_state()
        self.edited.emit()

    def _address_edited(self) -> None:
        self.edited.emit()

    def find_ports(self) -> None:
        typed = self.port.currentText()
        self.port.blockSignals(True)
        self.port.clear()
        for device, description in serial_ports():
            self.port.addItem(device)
            self.port.setItemData(self.port.count() - 1, description, Qt.ItemDataRole.ToolTipRole)
        self.port.setEditText(typed)
        self.port.blockSignals(False)

    # -- the key in the keyring ----------------------------------------------------------------
    def secret_entry_name(self) -> str:
        return prusalink_secret_key(self.url.text().strip().rstrip("/"), self.auth.currentData())

    def show_secret_state(self) -> None:
        """Name the keyring entry and say whether it holds a key (never showing the key)."""
        if self.chosen_transport != "prusalink":
            return
        entry = self.secret_entry_name()
        what = "password" if self.auth.currentData() == "digest" else "API key"
        try:
            stored = bool(self.url.text().strip()) and get_secret(entry) is not None
            state = "stored there" if stored else "not stored yet"
        except SecretUnavailable:
            stored, state = False, "the keyring cannot be read (see above)"
        self.secret.setPlaceholderText(
            f"stored: type a new {what} to replace it" if stored else f"the printer's {what}"
        )
        if stored and has_session_secret(entry):
            self.secret_entry.setText(f"Kept for this session only (entry '{entry}').")
            return
        self.secret_entry.setText(
            f"Kept in the system keyring, service '{SERVICE}', entry '{entry}': {state}."
        )

    # -- the draft in and out ------------------------------------------------------------------
    def load(self, draft: PrinterDraft) -> None:
        values = draft.values
        self.blockSignals(True)
        self.name.setText(values["name"])
        self.transport.setCurrentIndex(max(0, self.transport.findData(draft.transport)))
        self.url.setText(values["address"] if draft.transport == "prusalink" else "")
        self.port.setEditText(values["address"] if draft.transport == "serial" else "")
        self.baudrate.setEditText(str(values["baudrate"]))
        self.auth.setCurrentIndex(max(0, self.auth.findData(values["auth"])))
        self.user.setText(values["user"])
        self.storage.setText(values["storage"])
        self.secret.setText(draft.secret)
        self.show_test(draft)
        self.blockSignals(False)
        self._show_rows()
        self.show_errors(draft.errors)

    def store(self, draft: PrinterDraft) -> None:
        serial = self.chosen_transport == "serial"
        draft.transport = "serial" if serial else "prusalink"
        draft.values = {
            "name": self.name.text(),
            "address": (self.port.currentText() if serial else self.url.text()).strip(),
            "auth": self.auth.currentData(),
            "user": self.user.text(),
            "storage": self.storage.text().strip(),
            "baudrate": self.baudrate.currentText().strip(),
        }
        draft.secret = self.secret.text()

    def show_test(self, draft: PrinterDraft) -> None:
        self.test_result.setText(draft.test_result)
        self.test_result.setStyleSheet(RESULT_STYLES.get(draft.test_level, ""))

    def show_errors(self, errors: dict[str, str]) -> None:
        """Each message under its field; the others cleared."""
        placed = [(label, errors.get(key, "")) for key, label in self.errors.items()]
        placed += [
            (label, errors.get("address", "") if transport == self.chosen_transport else "")
            for transport, label in self.address_errors.items()
        ]
        for label, message in placed:
            label.setText(message)
            label.setVisible(bool(message))
        for key, widget in self.fields.items():
            wrong = errors.get("address" if key in ("port", "url") else key)
            widget.setStyleSheet(INVALID_STYLE if wrong else "")
