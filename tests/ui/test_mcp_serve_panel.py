"""File ▸ Serve tools over MCP…: the panel starts the real streamable-HTTP MCP server on the GUI's
loop, a real MCP client (on a worker thread) lists the tools with the token, Stop stops it; the
token is copied, never shown unless asked; a taken port is said in words."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from workbench.mcp.token import mcp_token
from workbench.ui.main_window import MainWindow
from workbench.ui.mcp_serve import McpServePanel

SHOTS = Path("/tmp/h/shots")
START_TIMEOUT_MS = 30000


async def tool_names(url: str, token: str) -> list[str]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        return [tool.name for tool in listed.tools]


def list_tools_from_a_client(url: str, token: str, qtbot: QtBot) -> list[str]:
    """As another process would: its own thread and loop (the GUI's loop serves meanwhile)."""
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(asyncio.run, tool_names(url, token))
        qtbot.waitUntil(future.done, timeout=START_TIMEOUT_MS)  # the GUI thread's loop serves
        return future.result()


def open_panel(window: MainWindow) -> McpServePanel:
    action = window.findChild(QAction, "action-serve-mcp")
    assert action is not None and "Serve tools over MCP" in action.text().replace("&", "")
    action.trigger()
    assert window.mcp_panel is not None and window.mcp_panel.isVisible()
    return window.mcp_panel


def click(panel: McpServePanel, name: str, qtbot: QtBot) -> None:
    qtbot.mouseClick(panel.findChild(QPushButton, name), Qt.MouseButton.LeftButton)


def start_serving(panel: McpServePanel, qtbot: QtBot, port: int = 0) -> None:
    panel.port.setValue(port)
    with qtbot.waitSignal(panel.state_changed, timeout=START_TIMEOUT_MS) as signal:
        click(panel, "mcp-start", qtbot)
    assert signal.args == ["serving"], panel.status.text()


def test_the_panel_serves_the_tools_to_a_client_with_the_token_and_stops(
    open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    window = open_window()
    window.resize(1024, 700)
    panel = open_panel(window)
    start_serving(panel, qtbot)
    url = panel.findChild(QLineEdit, "mcp-url").text()
    assert url.startswith("http://127.0.0.1:") and url == panel.url
    assert "Approval requests appear in this window" in panel.status.text()
    token = mcp_token(create=False)
    token_field = panel.findChild(QLineEdit, "mcp-token")
    assert token and token_field.echoMode() == QLineEdit.EchoMode.Password  # never in plain text
    SHOTS.mkdir(parents=True, exist_ok=True)
    panel.grab().save(str(SHOTS / "mcp-serve-panel.png"))

    names = list_tools_from_a_client(url, token, qtbot)
    assert "execute_cli_command" in names and "list_candidates" in names

    with qtbot.waitSignal(panel.state_changed, timeout=START_TIMEOUT_MS) as signal:
        click(panel, "mcp-stop", qtbot)
    assert signal.args == ["stopped"]
    assert panel.findChild(QLineEdit, "mcp-url").text() == "not serving"
    assert _refused(url)  # nobody listens on the port any more


def test_the_token_is_copied_and_shown_only_when_asked(
    open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    panel = open_panel(open_window())
    click(panel, "mcp-copy-token", qtbot)  # before serving: read from the keyring on demand
    qtbot.waitUntil(lambda: bool(QApplication.clipboard().text()), timeout=5000)
    token = mcp_token(create=False)
    assert QApplication.clipboard().text() == token
    token_field = panel.findChild(QLineEdit, "mcp-token")
    assert token_field.echoMode() == QLineEdit.EchoMode.Password
    assert token not in panel.status.text()
    click(panel, "mcp-show-token", qtbot)
    assert token_field.echoMode() == QLineEdit.EchoMode.Normal
    assert token_field.text() == token


def test_a_taken_port_is_said_in_words(
    open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    panel = open_panel(open_window())
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        panel.port.setValue(port)
        with qtbot.waitSignal(panel.state_changed, timeout=START_TIMEOUT_MS) as signal:
            click(panel, "mcp-start", qtbot)
    assert signal.args == ["failed"]
    assert f"Port {port} is already in use" in panel.status.text()
    assert not panel.serving and panel.start_button.isEnabled()


def test_closing_the_window_while_serving_asks_then_stops(
    open_window: Callable[..., MainWindow], qtbot: QtBot
) -> None:
    window = open_window()
    panel = open_panel(window)
    start_serving(panel, qtbot)
    url = panel.url
    window.close()
    question = window.close_question
    assert question is not None and f"serving Workbench's tools over MCP at {url}" in (
        question.text()
    )
    qtbot.mouseClick(question.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5000)
    assert not panel.serving
    qtbot.waitUntil(lambda: _refused(url), timeout=START_TIMEOUT_MS)


def _refused(url: str) -> bool:
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0
