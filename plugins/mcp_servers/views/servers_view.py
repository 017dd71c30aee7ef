"""The MCP servers view: the external servers the agent may use, each added as a command (stdio)
or a URL, switched on or off, tested (really started or reached, off the GUI thread, its tools
or the failure shown in words), and its tools that act on the world marked. Save writes the
settings ([plugins.mcp_servers]) and puts a typed token in the keyring, never in the settings.
"""

from __future__ import annotations

import asyncio

import shiboken6
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.secrets import SecretUnavailable, keep_for_session, set_secret
from workbench.core.settings import SettingsError
from workbench.ui.async_loop import start_task
from workbench.ui.settings_form import ERROR_STYLE
from workbench_plugins.mcp_servers.client import Listing, McpServerError, list_tools_once
from workbench_plugins.mcp_servers.config import McpServer, McpServersSettings, token_entry
from workbench_plugins.mcp_servers.specialists import PLUGIN, known_listing, remember
from workbench_plugins.mcp_servers.views.drafts import (
    Draft,
    draft_of,
    new_draft,
    server_of,
    settings_of,
)
from workbench_plugins.mcp_servers.views.server_form import ServerForm, named

OK_STYLE = "color: #1a7f37;"
LEVEL_MARKS = {"ok": "✓", "fail": "✖", "": ""}


class McpServersView(QWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcp-servers-view")
        self.context = context
        self.drafts: list[Draft] = []
        self.current = -1
        self.tests_running = 0
        problem = self._load_drafts()

        self.servers = named(QListWidget(), "mcp-servers-list")
        self.servers.setMaximumHeight(84)
        self.servers.currentRowChanged.connect(self._select)
        self.add_button = named(QPushButton("Add"), "mcp-add")
        self.remove_button = named(QPushButton("Remove"), "mcp-remove")
        self.add_button.clicked.connect(self.add_server)
        self.remove_button.clicked.connect(self.remove_server)
        self.form = ServerForm(self)
        self.form.world_changed.connect(lambda: self._say("Unsaved: Save to keep the change."))
        self.test_button = named(QPushButton("Test"), "mcp-test")
        self.test_button.setToolTip("Start or reach the server, handshake and list its tools")
        self.save_button = named(QPushButton("Save"), "mcp-save")
        self.test_button.clicked.connect(self.test_server)
        self.save_button.clicked.connect(self.save)
        self.status = named(QLabel(), "mcp-status")
        self.status.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(QLabel("External MCP servers: each is a specialist with its tools."), 1)
        top.addWidget(self.add_button)
        top.addWidget(self.remove_button)
        actions = QHBoxLayout()
        actions.addWidget(self.test_button)
        actions.addStretch(1)
        actions.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.servers)
        layout.addWidget(self.form, 1)
        layout.addLayout(actions)
        layout.addWidget(self.status)
        self._fill_list()
        self.servers.setCurrentRow(0 if self.drafts else -1)
        if not self.drafts:
            self.form.load(None)
        if problem:
            self._say(problem, "fail")

    def _load_drafts(self) -> str:
        try:
            settings = self.context.settings.plugin(PLUGIN, McpServersSettings)
        except SettingsError as invalid:
            return f"{invalid} The view starts empty; Save replaces them."
        self.drafts = [draft_of(server) for server in settings.servers]
        for draft, server in zip(self.drafts, settings.servers, strict=True):
            draft.listing = known_listing(server)
        return ""

    # -- the list -------------------------------------------------------------------------------
    def _fill_list(self) -> None:
        self.servers.blockSignals(True)
        self.servers.clear()
        for draft in self.drafts:
            QListWidgetItem(_list_text(draft), self.servers)
        self.servers.setCurrentRow(self.current)
        self.servers.blockSignals(False)
        self.remove_button.setEnabled(bool(self.drafts))
        self.test_button.setEnabled(bool(self.drafts))

    def _select(self, row: int) -> None:
        self.form.store()
        self.current = row
        draft = self.drafts[row] if 0 <= row < len(self.drafts) else None
        self.form.load(draft)
        if draft is not None:
            self._say(draft.test_text, draft.test_level)

    def add_server(self) -> None:
        self.form.store()
        self.drafts.append(new_draft([draft.name for draft in self.drafts]))
        self.current = len(self.drafts) - 1
        self._fill_list()
        self.form.load(self.drafts[self.current])
        self.form.command.setFocus()
        self._say("Type its command or URL, Test it, then Save.")

    def remove_server(self) -> None:
        if not 0 <= self.current < len(self.drafts):
            return
        removed = self.drafts.pop(self.current)
        self.current = min(self.current, len(self.drafts) - 1)
        self._fill_list()
        self.form.load(self.drafts[self.current] if self.drafts else None)
        self._say(f"Removed {removed.name or 'the server'}: Save to keep this.")

    # -- testing --------------------------------------------------------------------------------
    def test_server(self) -> None:
        """Start or reach the server as typed, on a worker thread; its tools or the failure."""
        draft = self.form.store()
        if draft is None:
            return
        try:
            server = server_of(draft)
        except ValueError as wrong:
            self._say(f"Cannot test: {wrong}.", "fail")
            return
        if not self._keep_token(draft):
            return
        draft.test_text, draft.test_level = f"Testing {server.target()}…", ""
        self._say(draft.test_text)
        self.test_button.setEnabled(False)
        self.tests_running += 1
        start_task(self._test(draft, server), name="mcp-servers-test")

    async def _test(self, draft: Draft, server: McpServer) -> None:
        workspace = self.context.store.folder
        try:  # its own loop in a worker thread: the GUI thread never waits on a server
            listing = await asyncio.to_thread(asyncio.run, list_tools_once(server, workspace))
        except McpServerError as failed:
            draft.test_text, draft.test_level = f"{failed.message} {failed.hint}", "fail"
        except Exception as error:  # the test itself broke: still an answer in words
            draft.test_text, draft.test_level = f"The test broke: {error}", "fail"
        else:
            draft.listing = listing
            draft.test_text, draft.test_level = _tested(server, listing), "ok"
            remember(server, listing)
        self.tests_running -= 1
        if not shiboken6.isValid(self):
            return  # the view was closed meanwhile
        self.test_button.setEnabled(True)
        self._fill_list()
        if 0 <= self.current < len(self.drafts) and self.drafts[self.current] is draft:
            self.form.show_tools()
            self._say(draft.test_text, draft.test_level)

    # -- saving ---------------------------------------------------------------------------------
    def save(self) -> bool:
        self.form.store()
        settings, problem = settings_of(self.drafts)
        if settings is None:
            self._say(problem, "fail")
            return False
        if not all(self._keep_token(draft) for draft in self.drafts):
            return False
        try:
            self.context.settings = self.context.settings.with_plugin(PLUGIN, settings)
            self.context.save_settings()
        except (SettingsError, OSError) as error:
            self._say(f"Not saved: {error}", "fail")
            return False
        self._fill_list()
        self._say(
            f"Saved to {self.context.paths.settings_file}. The agent uses these servers from "
            "its next message.",
            "ok",
        )
        return True

    def _keep_token(self, draft: Draft) -> bool:
        """A typed token goes to the keyring (or, with none, into this session's memory)."""
        if draft.kind != "http" or not draft.token:
            return True
        entry = token_entry(draft.name.strip())
        try:
            set_secret(entry, draft.token)
        except SecretUnavailable as error:
            keep_for_session(entry, draft.token)
            self._say(f"Kept for this session only: {error}", "fail")
        draft.token = ""
        self.form.token.clear()
        self.form.refresh_token_note()
        return True

    def _say(self, text: str, level: str = "") -> None:
        mark = LEVEL_MARKS.get(level, "")
        self.status.setText(f"{mark} {text}".strip())
        # a wrapped label's height is not always asked for: reserve its lines, or they are cut
        self.status.setMinimumHeight(self.status.heightForWidth(max(self.status.width(), 300)))
        self.status.setStyleSheet(
            ERROR_STYLE if level == "fail" else OK_STYLE if level == "ok" else ""
        )


def _tested(server: McpServer, listing: Listing) -> str:
    names = ", ".join(tool.name for tool in listing.tools) or "none"
    who = f" ({listing.server_info})" if listing.server_info else ""
    return f"Connected to {server.target()}{who}: {len(listing.tools)} tools: {names}."


def _list_text(draft: Draft) -> str:
    switch = "on " if draft.enabled else "off"
    where = draft.command_line if draft.kind == "stdio" else draft.url
    mark = LEVEL_MARKS.get(draft.test_level, "")
    return f"{switch}  {draft.name or '(unnamed)'}  —  {where or '(not set)'}  {mark}".rstrip()


class McpServersDialog(QDialog):
    """The view in a dialog: the settings dialog's editor of the servers list."""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("MCP servers")
        self.view = McpServersView(context, self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addWidget(buttons)
        self.resize(560, 600)
