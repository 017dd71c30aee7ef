"""End to end: an MCP client drives a real `workbench --headless mcp` subprocess over stdio, and a
shell command it asks for (a physical tool, the server started without --approve) waits for the
person at the desktop app: the main window (Qt offscreen, same WORKBENCH_HOME) shows the dialog,
qtbot clicks Approve or Deny, and the call runs or is refused."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
import pytest
import shiboken6
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench.ui.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path("/tmp/h/shots")
CLIENT_NAME = "desktop-approval-test"
CALL_TIMEOUT_S = 60.0
SHELL_CALL = ("execute_cli_command", {"command": ["ls"], "cwd": "."})


class McpClientThread:
    """One MCP client session on a thread (and asyncio loop) of its own, kept open for the
    module: the GUI thread stays free to show and click the dialog meanwhile."""

    def __init__(self, env: dict[str, str], errlog: TextIO) -> None:
        self.params = StdioServerParameters(
            command=sys.executable, args=["-m", "workbench", "--headless", "mcp"], env=env
        )
        self.errlog = errlog
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="mcp-client")
        self.session: ClientSession | None = None
        self._closing: asyncio.Event | None = None
        self._life: Future[None] | None = None

    def open(self) -> None:
        self.thread.start()
        ready: Future[None] = Future()
        self._life = asyncio.run_coroutine_threadsafe(self._live(ready), self.loop)
        ready.result(timeout=CALL_TIMEOUT_S)

    async def _live(self, ready: Future[None]) -> None:
        self._closing = asyncio.Event()
        try:
            async with stdio_client(self.params, errlog=self.errlog) as (read, write):
                info = types.Implementation(name=CLIENT_NAME, version="1")
                async with ClientSession(read, write, client_info=info) as session:
                    await session.initialize()
                    self.session = session
                    ready.set_result(None)
                    await self._closing.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            raise

    def call(self, name: str, arguments: dict[str, Any]) -> Future[types.CallToolResult]:
        if self.session is None:
            raise RuntimeError("the MCP session is not open")
        call = self.session.call_tool(name, arguments)
        return asyncio.run_coroutine_threadsafe(call, self.loop)

    def close(self) -> None:
        if self._closing is not None:
            self.loop.call_soon_threadsafe(self._closing.set)
        if self._life is not None:
            try:
                self._life.result(timeout=30)
            except BaseException as error:  # teardown: say it, the tests have their answers
                print(f"closing the MCP session: {error!r}", file=sys.stderr)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("desktop-approval") / "home"


@pytest.fixture(autouse=True)
def workbench_home(
    workbench_home: Path, shared_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The app in the test and the server subprocess share one data folder (so one socket)."""
    monkeypatch.setenv("WORKBENCH_HOME", str(shared_home))
    return shared_home


@pytest.fixture(scope="module")
def mcp_client(shared_home: Path) -> Iterator[McpClientThread]:
    errlog_path = shared_home.parent / "server-stderr.log"
    env = dict(os.environ)
    env.update(
        WORKBENCH_HOME=str(shared_home),
        OLLAMA_HOST="http://127.0.0.1:9",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
    )
    with errlog_path.open("w+") as errlog:
        client = McpClientThread(env, errlog)
        try:
            client.open()
            yield client
        finally:
            client.close()
            errlog.seek(0)
            print(errlog.read()[-4000:], file=sys.stderr)  # shown when a test failed


@pytest.fixture
def window(qapp: Any, qtbot: QtBot, context: AppContext) -> Iterator[MainWindow]:
    with attached_event_loop(qapp):
        main = MainWindow(context, remember_layout=False)
        qtbot.addWidget(main)
        main.show()
        qtbot.waitExposed(main)
        qtbot.waitUntil(lambda: main.approvals.listener.listening, timeout=5000)
        yield main
        if shiboken6.isValid(main):
            main.close()
        qtbot.waitUntil(lambda: running_tasks() == 0)


def dialog(window: MainWindow, qtbot: QtBot) -> QMessageBox:
    qtbot.waitUntil(lambda: len(window.approvals.dialogs) == 1, timeout=30000)
    return window.approvals.dialogs[0]


def click(box: QMessageBox, name: str, qtbot: QtBot) -> None:
    qtbot.mouseClick(box.findChild(QPushButton, name), Qt.MouseButton.LeftButton)


def result_of(future: Future[types.CallToolResult], qtbot: QtBot) -> types.CallToolResult:
    qtbot.waitUntil(future.done, timeout=int(CALL_TIMEOUT_S * 1000))
    return future.result()


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


def test_approved_in_the_desktop_app_the_shell_command_runs(
    window: MainWindow, mcp_client: McpClientThread, qtbot: QtBot
) -> None:
    future = mcp_client.call(*SHELL_CALL)
    box = dialog(window, qtbot)
    assert CLIENT_NAME in box.text() and "execute_cli_command" in box.text()
    assert "Run: ls" in box.informativeText()  # the exact command, as the GUI's own confirmation
    assert not future.done()  # the call waits for the person
    SHOTS.mkdir(parents=True, exist_ok=True)
    box.grab().save(str(SHOTS / "approval-dialog-from-mcp.png"))
    click(box, "approve", qtbot)
    result = result_of(future, qtbot)
    assert not result.is_error, text_of(result)
    assert "exit 0" in text_of(result) or "exit 0" in str(result.structured_content)


def test_denied_in_the_desktop_app_the_call_is_refused(
    window: MainWindow, mcp_client: McpClientThread, qtbot: QtBot
) -> None:
    future = mcp_client.call(*SHELL_CALL)
    click(dialog(window, qtbot), "deny", qtbot)
    result = result_of(future, qtbot)
    assert result.is_error
    assert "denied in the desktop app" in text_of(result)


def test_without_the_desktop_app_the_call_is_refused_saying_how_to_allow_it(
    mcp_client: McpClientThread, qtbot: QtBot
) -> None:
    result = result_of(mcp_client.call(*SHELL_CALL), qtbot)
    assert result.is_error
    assert "--approve" in text_of(result) and "desktop app" in text_of(result)
