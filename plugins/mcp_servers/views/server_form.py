"""The form of one MCP server in the MCP servers view: how it is reached, and per tool whether it
acts on the world (a checkbox; such a tool asks a person before each call)."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from workbench.core.secrets import SERVICE, SecretUnavailable, get_secret
from workbench_plugins.mcp_servers.config import token_entry
from workbench_plugins.mcp_servers.views.drafts import Draft

W = TypeVar("W", bound=QWidget)
KINDS = {"stdio": "Program (stdio)", "http": "URL (streamable HTTP)"}
WORLD_COLUMN = 1
ABOUT_SHOWN = 48  # characters of a tool's description beside its name (the rest: tooltip)


def named(widget: W, name: str) -> W:
    """`widget` with its object name set (how tests and style sheets find it)."""
    widget.setObjectName(name)
    return widget


class ServerForm(QWidget):
    """Shows one draft; `store` writes what is typed back into it. `world_changed` fires when a
    tool's "acts on the world" box is ticked or cleared."""

    world_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = named(QLineEdit(), "mcp-name")
        self.name.setPlaceholderText("lab_stage")
        self.enabled = named(QCheckBox("Offer to the agent"), "mcp-enabled")
        self.description = named(QLineEdit(), "mcp-description")
        self.description.setPlaceholderText("What it is for: the supervisor routes by this")
        self.kind = named(QComboBox(), "mcp-kind")
        for kind, title in KINDS.items():
            self.kind.addItem(title, kind)
        self.command = named(QLineEdit(), "mcp-command")
        self.command.setPlaceholderText("python -m my_server   or   npx -y @org/server")
        self.cwd = named(QLineEdit(), "mcp-cwd")
        self.cwd.setPlaceholderText("(the workspace)")
        self.url = named(QLineEdit(), "mcp-url")
        self.url.setPlaceholderText("https://host/mcp")
        self.token = named(QLineEdit(), "mcp-token")
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setPlaceholderText("bearer token, if it needs one")
        self.token_note = named(QLabel(), "mcp-token-note")
        self.token_note.setWordWrap(True)
        self.token_note.setStyleSheet("color: palette(mid);")

        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.addRow("Name", self.name)
        self.form.addRow("", self.enabled)
        self.form.addRow("About", self.description)
        self.form.addRow("Runs as", self.kind)
        self.form.addRow("Command", self.command)
        self.form.addRow("Folder", self.cwd)
        self.form.addRow("URL", self.url)
        self.form.addRow("Token", self.token)
        self.form.addRow("", self.token_note)
        self.kind.currentIndexChanged.connect(self._show_kind)
        self.name.editingFinished.connect(self.refresh_token_note)

        self.tools = named(QTableWidget(0, 2), "mcp-tools")
        self.tools.setHorizontalHeaderLabels(["Tool", "Acts on the world"])
        header = self.tools.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(WORLD_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        self.tools.verticalHeader().hide()
        self.tools.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.tools.itemChanged.connect(self._tick)
        self.tools_note = named(QLabel(), "mcp-tools-note")
        self.tools_note.setWordWrap(True)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(self.form)
        column.addWidget(self.tools_note)
        column.addWidget(self.tools, 1)
        self._draft: Draft | None = None

    # -- showing and storing --------------------------------------------------------------------
    def load(self, draft: Draft | None) -> None:
        self._draft = draft
        self.setEnabled(draft is not None)
        shown = draft or Draft()
        self.name.setText(shown.name)
        self.enabled.setChecked(shown.enabled)
        self.description.setText(shown.description)
        self.kind.setCurrentIndex(list(KINDS).index(shown.kind))
        self.command.setText(shown.command_line)
        self.cwd.setText(shown.cwd)
        self.url.setText(shown.url)
        self.token.setText(shown.token)
        self._show_kind()
        self.show_tools()

    def store(self) -> Draft | None:
        draft = self._draft
        if draft is None:
            return None
        draft.name = self.name.text().strip()
        draft.enabled = self.enabled.isChecked()
        draft.description = self.description.text()
        draft.kind = "http" if self.kind.currentData() == "http" else "stdio"
        draft.command_line = self.command.text()
        draft.cwd = self.cwd.text()
        draft.url = self.url.text()
        draft.token = self.token.text()
        return draft

    def _show_kind(self) -> None:
        http = self.kind.currentData() == "http"
        for widget, shown in (
            (self.command, not http),
            (self.cwd, not http),
            (self.url, http),
            (self.token, http),
            (self.token_note, http),
        ):
            self.form.setRowVisible(widget, shown)
        self.refresh_token_note()

    def refresh_token_note(self) -> None:
        http = self.kind.currentData() == "http"
        self.token_note.setText(_token_note(self.name.text().strip()) if http else "")

    def show_tools(self) -> None:
        """The tools the last Test found (and any marked tool it did not find), each with its
        "acts on the world" box."""
        draft = self._draft
        listed = list(draft.listing.tools) if draft and draft.listing else []
        marked = list(draft.world_tools) if draft else []
        names = [tool.name for tool in listed]
        self.tools.blockSignals(True)
        self.tools.setRowCount(0)
        for tool in listed:
            about = (tool.description or "").strip()
            hint = tool.annotations.destructive_hint if tool.annotations else None
            if hint:
                about += "\n(The server says it may change or destroy things.)"
            self._add_row(tool.name, about, tool.name in marked)
        for name in [name for name in marked if name not in names]:
            self._add_row(name, "Marked, but the server did not list it at the last Test.", True)
        self.tools.blockSignals(False)
        if draft is None or draft.listing is None:
            self.tools_note.setText(
                "Test the server to see its tools and mark those that act on the world."
            )
        else:
            self.tools_note.setText(
                "Tick the tools that act on the world (move, print, send, delete): the agent "
                "asks you before each call of those."
            )

    def _add_row(self, name: str, about: str, world: bool) -> None:
        row = self.tools.rowCount()
        self.tools.insertRow(row)
        first = about.splitlines()[0] if about else ""
        short = first if len(first) <= ABOUT_SHOWN else first[: ABOUT_SHOWN - 1] + "…"
        label = QTableWidgetItem(f"{name}: {short}" if short else name)
        label.setToolTip(f"{name}\n{about}" if about else name)
        box = QTableWidgetItem()
        box.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
        box.setCheckState(Qt.CheckState.Checked if world else Qt.CheckState.Unchecked)
        box.setData(Qt.ItemDataRole.UserRole, name)
        self.tools.setItem(row, 0, label)
        self.tools.setItem(row, WORLD_COLUMN, box)

    def _tick(self, item: QTableWidgetItem) -> None:
        if self._draft is None or item.column() != WORLD_COLUMN:
            return
        name = str(item.data(Qt.ItemDataRole.UserRole))
        marked = [tool for tool in self._draft.world_tools if tool != name]
        if item.checkState() == Qt.CheckState.Checked:
            marked.append(name)
        self._draft.world_tools = marked
        self.world_changed.emit()

    def world_box(self, tool: str) -> QTableWidgetItem | None:
        """The "acts on the world" box of `tool` (tests tick it)."""
        for row in range(self.tools.rowCount()):
            item = self.tools.item(row, WORLD_COLUMN)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == tool:
                return item
        return None


def _token_note(name: str) -> str:
    entry = token_entry(name or "<name>")
    try:
        stored = bool(name) and get_secret(entry) is not None
    except SecretUnavailable:
        return f"No keyring answers: a typed token is used for this session only ({entry})."
    state = "a token is stored" if stored else "no token stored"
    return f"Kept in the keyring (service '{SERVICE}', entry '{entry}'): {state}."
