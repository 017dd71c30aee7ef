"""File ▸ Serve tools over MCP…: the GUI's way to what `workbench --headless mcp --http` does.

A small non-modal panel starts `workbench.mcp.http.McpHttpServer` on the GUI's asyncio loop
(127.0.0.1, the bearer token from the keyring), shows the URL, lets the person copy the token
without showing it, and stops the server. Tools that act on the world are not approved in
advance: each call asks in this window (workbench.ui.approvals). The server stops when the
window closes. The MCP server's modules are imported only when serving starts (start-up time).
With no system keyring the token cannot be kept: the panel says so in one sentence (what to
install in its tooltip) and offers a token for this session only, kept in memory, written nowhere.
"""

from __future__ import annotations

import asyncio
import errno
import importlib
import logging
import secrets
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from workbench.core.context import AppContext
from workbench.core.secrets import SecretUnavailable, keep_for_session, keyring_advice
from workbench.ui.async_loop import start_task
from workbench.ui.settings_form import ERROR_STYLE

log = logging.getLogger(__name__)
DEFAULT_PORT = 8765
INTRO = (
    "Other agents (Claude Code, Cursor, any MCP client on this computer) can call Workbench's "
    "tools while this window is open. The server listens on 127.0.0.1 only and needs the token."
)
POLICY = (
    "<b>Approvals.</b> Tools that act on the world (printing, shell commands, submitting "
    "jobs) and files outside the workspace are never run on the agent's word alone: each such "
    "call opens a dialog in this window, and runs only if you approve it."
)
NO_KEYRING = (
    "No system keyring on this computer, so the token cannot be kept: use a token for this "
    "session only, or set up an encrypted file keyring."
)
CLIENT_HINT = "In the client, add an HTTP MCP server at this URL with the header"


def start_problem(error: BaseException, port: int) -> str:
    """Why serving did not start, in words a person can act on."""
    if isinstance(error, OSError) and error.errno == errno.EADDRINUSE:
        return (
            f"Port {port} is already in use by another program (or another Workbench). Choose "
            "another port, or 0 for any free one."
        )
    if isinstance(error, OSError) and error.errno == errno.EACCES:
        return f"Port {port} needs administrator rights; choose a port above 1023."
    if isinstance(error, ValueError):
        return str(error)
    if isinstance(error, SystemExit):  # a server library that exits when it cannot bind
        return f"The MCP server could not listen on port {port}; it may be in use. Choose another."
    return f"The MCP server could not start: {type(error).__name__}: {error}"


class McpServePanel(QDialog):
    """Start and stop serving the tools over MCP (streamable HTTP, token, approvals here)."""

    state_changed = Signal(str)  # "serving", "stopped" or "failed" (tests wait for it)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcp-serve-panel")
        self.setWindowTitle("Serve tools over MCP")
        self.setModal(False)
        self.context = context
        self.server: Any = None  # a workbench.mcp.http.McpHttpServer while serving
        self.url = ""
        self._busy = False

        intro = _wrapped(INTRO)
        policy = _wrapped(POLICY)
        policy.setObjectName("mcp-policy")

        self.port = QSpinBox()
        self.port.setObjectName("mcp-port")
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText("any free port")
        self.port.setValue(DEFAULT_PORT)
        self.url_field = _read_only("mcp-url", "not serving")
        copy_url = _button("Copy", "mcp-copy-url", lambda: self._copy(self.url))
        self.token_field = _read_only("mcp-token", "")
        self.token_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.show_token = _button("Show", "mcp-show-token", self._toggle_token)
        self.show_token.setCheckable(True)
        copy_token = _button("Copy token", "mcp-copy-token", self._copy_token)

        form = QFormLayout()
        form.addRow("Port", self.port)
        form.addRow("URL", _row(self.url_field, copy_url))
        form.addRow("Token", _row(self.token_field, self.show_token, copy_token))
        self.hint = _wrapped(f"{CLIENT_HINT} “Authorization: Bearer <token>”.")

        self.status = _wrapped("Not serving.")
        self.status.setObjectName("mcp-status")
        self.start_button = _button("Start serving", "mcp-start", self.start)
        self.stop_button = _button("Stop", "mcp-stop", self.stop)
        self.session_button = _button(
            "Use a token for this session only", "mcp-session-token", self.serve_with_session_token
        )
        self.session_button.setToolTip("Kept in memory until Workbench closes, written nowhere")
        self.session_button.hide()
        self.session_token = False
        close = _button("Close", "mcp-close", self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.stop_button)
        buttons.addWidget(self.session_button)
        buttons.addStretch(1)
        buttons.addWidget(close)

        column = QVBoxLayout(self)
        for part in (intro, policy):
            column.addWidget(part)
        column.addLayout(form)
        column.addWidget(self.hint)
        column.addWidget(self.status)
        column.addLayout(buttons)
        self.resize(520, self.sizeHint().height())
        self._update()

    # -- serving --------------------------------------------------------------------------------
    @property
    def serving(self) -> bool:
        return self.server is not None

    def start(self) -> None:
        if self.serving or self._busy:
            return
        self._busy = True
        self._say("Starting…")
        start_task(self._serve(self.port.value()), name="mcp-serve")

    async def _serve(self, port: int) -> None:
        try:
            # heavy (web server, MCP SDK, seconds): imported on use, on a worker thread
            await asyncio.to_thread(importlib.import_module, "workbench.mcp.http")
            from workbench.mcp.http import McpHttpServer
            from workbench.mcp.token import mcp_token

            token = await asyncio.to_thread(mcp_token)  # the keyring may take its time
            # building the server describes every tool (schemas): off the GUI thread as well
            server = await asyncio.to_thread(McpHttpServer, self.context, port=port, token=token)
            url = await server.start()
        except SecretUnavailable as error:  # no keyring: one sentence and the way on
            log.info("no keyring for the MCP token: %s", error)
            self._busy = False
            self._say(NO_KEYRING)
            self.status.setToolTip(keyring_advice())
            self.session_button.show()
            self.state_changed.emit("failed")
            return
        except (Exception, SystemExit) as error:
            log.warning("serving over MCP failed", exc_info=True)
            self._busy = False
            self._say(start_problem(error, port), error=True)
            self.state_changed.emit("failed")
            return
        self.server, self.url, self._busy = server, url, False
        self.token_field.setText(token)
        self.session_button.hide()
        kept = " The token is for this session only." if self.session_token else ""
        self._say(f"Serving at {url}. Approval requests appear in this window.{kept}")
        self.state_changed.emit("serving")

    def serve_with_session_token(self) -> None:
        """No keyring: a fresh token in this process's memory (mcp_token finds it), then serve."""
        from workbench.mcp.token import TOKEN_BYTES, TOKEN_ENTRY

        keep_for_session(TOKEN_ENTRY, secrets.token_urlsafe(TOKEN_BYTES))
        self.session_token = True
        self.start()

    def stop(self) -> None:
        if not self.serving or self._busy:
            return
        self._busy = True
        self._say("Stopping…")
        start_task(self._stop(), name="mcp-stop")

    async def _stop(self) -> None:
        server, self.server = self.server, None
        try:
            await server.stop()
        except Exception as error:
            log.warning("stopping the MCP server failed", exc_info=True)
            self.url, self._busy = "", False
            self._say(f"The MCP server stopped with an error: {error}", error=True)
        else:
            self.url, self._busy = "", False
            self._say("Stopped. MCP clients can no longer reach Workbench.")
        self.state_changed.emit("stopped")

    def busy(self) -> list[str]:
        """What closing the window would stop (the window asks first)."""
        return [f"serving Workbench's tools over MCP at {self.url}"] if self.serving else []

    def shutdown(self) -> None:
        """The window closes: stop serving (on the loop, without waiting)."""
        if self.serving:
            server, self.server = self.server, None
            start_task(server.stop(), name="mcp-stop")
        self.close()

    # -- what the panel shows -------------------------------------------------------------------
    def _say(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(ERROR_STYLE if error else "")
        self.status.setToolTip("")
        self._update()

    def _update(self) -> None:
        self.start_button.setEnabled(not self.serving and not self._busy)
        self.stop_button.setEnabled(self.serving and not self._busy)
        self.port.setEnabled(not self.serving and not self._busy)
        self.url_field.setText(self.url or "not serving")

    def _toggle_token(self, shown: bool) -> None:
        mode = QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password
        self.token_field.setEchoMode(mode)
        self.show_token.setText("Hide" if shown else "Show")

    def _copy_token(self) -> None:
        if self.token_field.text():
            self._copy(self.token_field.text())
            self._say("Token copied. Paste it into the client's Authorization header.")
        else:
            start_task(self._load_token_and_copy(), name="mcp-token")

    async def _load_token_and_copy(self) -> None:
        try:
            from workbench.mcp.token import mcp_token

            token = await asyncio.to_thread(mcp_token)
        except Exception as error:  # no keyring backend, ...
            self._say(f"The MCP token could not be read: {error}", error=True)
            return
        self.token_field.setText(token)
        self._copy_token()

    def _copy(self, text: str) -> None:
        if text:
            QApplication.clipboard().setText(text)


def _wrapped(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _read_only(name: str, placeholder: str) -> QLineEdit:
    field = QLineEdit()
    field.setObjectName(name)
    field.setReadOnly(True)
    field.setPlaceholderText(placeholder)
    return field


def _button(text: str, name: str, action: Any) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.clicked.connect(action)
    return button


def _row(*widgets: QWidget) -> QWidget:
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget)
    return row
