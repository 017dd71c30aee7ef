"""The desktop app answers approval requests from other processes: a real Unix socket, a real
main window (Qt offscreen), the dialog clicked with qtbot; the asking side runs `ask_desktop` on
a worker thread's own asyncio loop, as another process would."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from workbench.core.approvals import (
    MAX_MESSAGE_BYTES,
    ApprovalAnswer,
    ApprovalListener,
    ApprovalRequest,
    OnRequest,
    approvals_socket,
    ask_desktop,
)
from workbench.core.context import AppContext
from workbench.ui.main_window import MainWindow

SHOTS = Path("/tmp/h/shots")
REQUEST = ApprovalRequest(
    caller="MCP client 'claude-code' (stdio)",
    tool="execute_cli_command",
    arguments={"command": "ls -la", "cwd": "."},
    message="Run the shell command `ls -la` in the workspace?",
)


@pytest.fixture
def asker() -> Iterator[Callable[..., Future[ApprovalAnswer | None]]]:
    """Ask from a worker thread with its own loop, as the MCP server process does."""
    pool = ThreadPoolExecutor(4, thread_name_prefix="asker")

    def ask(
        context: AppContext, request: ApprovalRequest = REQUEST, timeout_s: float = 30.0
    ) -> Future[ApprovalAnswer | None]:
        return pool.submit(asyncio.run, ask_desktop(context.paths, request, timeout_s))

    yield ask
    pool.shutdown(wait=True, cancel_futures=True)


def listening_window(open_window: Callable[..., MainWindow], qtbot: QtBot) -> MainWindow:
    window = open_window()
    qtbot.waitUntil(lambda: window.approvals.listener.listening, timeout=5000)
    return window


def dialog(window: MainWindow, qtbot: QtBot, count: int = 1) -> QMessageBox:
    qtbot.waitUntil(lambda: len(window.approvals.dialogs) == count, timeout=10000)
    box = window.approvals.dialogs[-1]
    qtbot.waitExposed(box)
    return box


def with_dialog(window: MainWindow, box: QMessageBox) -> QPixmap:
    """The window with the dialog over it, as a person sees them (offscreen, each is its own
    top-level picture)."""
    picture = window.grab()
    question = box.grab()
    painter = QPainter(picture)
    left, top = (picture.width() - question.width()) // 2, picture.height() // 4
    painter.drawPixmap(left, top, question)
    painter.setPen(QColor("#57606a"))
    painter.drawRect(left - 1, top - 1, question.width() + 1, question.height() + 1)
    painter.end()
    return picture


def click(box: QMessageBox, name: str, qtbot: QtBot) -> None:
    button = box.findChild(QPushButton, name)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def answer_of(future: Future[ApprovalAnswer | None], qtbot: QtBot) -> ApprovalAnswer | None:
    qtbot.waitUntil(future.done, timeout=10000)
    return future.result()


def test_approve_in_the_dialog_reaches_the_asking_process(
    open_window: Callable[..., MainWindow], qtbot: QtBot, context: AppContext, asker: Callable
) -> None:
    window = listening_window(open_window, qtbot)
    window.resize(1024, 700)
    future = asker(context)
    box = dialog(window, qtbot)
    assert box.objectName() == "approve-external-tool"
    assert "MCP client 'claude-code' (stdio)" in box.text()
    assert "execute_cli_command" in box.text()
    assert "`ls -la`" in box.informativeText()
    assert '"command": "ls -la"' in box.detailedText()
    assert box.defaultButton().objectName() == "deny"  # Enter must not approve
    assert not future.done()  # nothing is decided before the person clicks
    SHOTS.mkdir(parents=True, exist_ok=True)
    with_dialog(window, box).save(str(SHOTS / "approval-window.png"))
    click(box, "approve", qtbot)
    answer = answer_of(future, qtbot)
    assert answer == ApprovalAnswer(approved=True, reason="approved in the desktop app")
    assert window.approvals.dialogs == []


def test_deny_in_the_dialog_refuses(
    open_window: Callable[..., MainWindow], qtbot: QtBot, context: AppContext, asker: Callable
) -> None:
    window = listening_window(open_window, qtbot)
    future = asker(context)
    click(dialog(window, qtbot), "deny", qtbot)
    answer = answer_of(future, qtbot)
    assert answer is not None and not answer.approved
    assert answer.reason == "denied in the desktop app"


def test_several_requests_each_get_their_dialog_and_their_answer(
    open_window: Callable[..., MainWindow], qtbot: QtBot, context: AppContext, asker: Callable
) -> None:
    window = listening_window(open_window, qtbot)
    first = asker(context, REQUEST.model_copy(update={"tool": "connect_printer"}))
    first_box = dialog(window, qtbot, count=1)
    second = asker(context, REQUEST.model_copy(update={"tool": "start_print"}))
    second_box = dialog(window, qtbot, count=2)
    assert "connect_printer" in first_box.text() and "start_print" in second_box.text()
    click(second_box, "approve", qtbot)
    second_answer = answer_of(second, qtbot)
    assert second_answer is not None and second_answer.approved
    assert not first.done()  # the other question still waits
    click(first_box, "deny", qtbot)
    first_answer = answer_of(first, qtbot)
    assert first_answer is not None and not first_answer.approved


def test_closing_the_window_answers_pending_requests_denied(
    open_window: Callable[..., MainWindow], qtbot: QtBot, context: AppContext, asker: Callable
) -> None:
    window = listening_window(open_window, qtbot)
    socket_file = approvals_socket(context.paths)
    futures = [asker(context), asker(context)]
    dialog(window, qtbot, count=2)
    window.close()
    for future in futures:
        answer = answer_of(future, qtbot)
        assert answer == ApprovalAnswer(approved=False, reason="the desktop app closed")
    assert window.approvals.dialogs == []
    assert not socket_file.exists()  # nobody listens any more: later callers get None
    assert asker(context).result(timeout=10) is None


def test_an_asker_that_gives_up_withdraws_its_dialog(
    open_window: Callable[..., MainWindow], qtbot: QtBot, context: AppContext, asker: Callable
) -> None:
    window = listening_window(open_window, qtbot)
    future = asker(context, timeout_s=1.0)
    dialog(window, qtbot)
    answer = answer_of(future, qtbot)
    assert answer == ApprovalAnswer(
        approved=False, reason="no answer in the desktop app within 1 s"
    )
    qtbot.waitUntil(lambda: window.approvals.dialogs == [], timeout=5000)


def test_no_desktop_app_means_no_answer(context: AppContext, asker: Callable) -> None:
    assert not approvals_socket(context.paths).exists()
    assert asker(context).result(timeout=10) is None


def test_a_stale_socket_gives_none_quickly_and_the_next_window_replaces_it(
    open_window: Callable[..., MainWindow], qtbot: QtBot, context: AppContext, asker: Callable
) -> None:
    stale = approvals_socket(context.paths, create=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(stale))  # an app that died: the file stays, nobody accepts
    dead.close()
    started = time.monotonic()
    assert asker(context).result(timeout=10) is None
    assert time.monotonic() - started < 2.0
    window = listening_window(open_window, qtbot)
    future = asker(context)
    click(dialog(window, qtbot), "approve", qtbot)
    answer = answer_of(future, qtbot)
    assert answer is not None and answer.approved


def test_socket_and_folder_are_private(
    open_window: Callable[..., MainWindow], qtbot: QtBot, context: AppContext
) -> None:
    listening_window(open_window, qtbot)
    socket_file = approvals_socket(context.paths)
    assert stat.S_ISSOCK(socket_file.stat().st_mode)
    assert stat.S_IMODE(socket_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(socket_file.parent.stat().st_mode) == 0o700
    assert socket_file.parent.stat().st_uid == os.getuid()


def test_a_second_window_does_not_steal_the_socket(
    open_window: Callable[..., MainWindow], qtbot: QtBot, context: AppContext, asker: Callable
) -> None:
    first = listening_window(open_window, qtbot)
    second = open_window()
    qtbot.waitUntil(lambda: "already answers" in second.approvals.status, timeout=5000)
    assert not second.approvals.listener.listening
    future = asker(context)
    click(dialog(first, qtbot), "deny", qtbot)
    answer = answer_of(future, qtbot)
    assert answer is not None and not answer.approved
    assert second.approvals.dialogs == []


def answer_from_a_listener(context: AppContext, on_request: OnRequest, request: object) -> Any:
    """The Qt-free listener and asker on one loop of a worker thread (this thread's loop is the
    GUI's). `request`: an ApprovalRequest, or raw bytes sent as they are."""

    async def exchange() -> Any:
        listener = ApprovalListener(context.paths, on_request)
        socket_file = await listener.start()
        try:
            if isinstance(request, ApprovalRequest):
                return await ask_desktop(context.paths, request, timeout_s=10)
            reader, writer = await asyncio.open_unix_connection(str(socket_file))
            writer.write(request if isinstance(request, bytes) else b"")
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), 10)
            writer.close()
            return ApprovalAnswer.model_validate_json(line)
        finally:
            listener.stop()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, exchange()).result(timeout=30)


def test_a_prompt_that_fails_refuses(context: AppContext) -> None:
    async def broken(_request: ApprovalRequest) -> ApprovalAnswer:
        raise RuntimeError("no window")

    answer = answer_from_a_listener(context, broken, REQUEST)
    assert answer == ApprovalAnswer(
        approved=False, reason="the desktop app could not ask (RuntimeError)"
    )


def test_unreadable_and_oversized_requests_are_refused_in_words(context: AppContext) -> None:
    async def approve(_request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer(approved=True)

    garbage = answer_from_a_listener(context, approve, b"[1, 2]\n")
    assert garbage == ApprovalAnswer(approved=False, reason="the approval request was unreadable")
    old = answer_from_a_listener(context, approve, b'{"protocol": 0, "request": {}}\n')
    assert not old.approved and "same Workbench version" in old.reason
    huge = answer_from_a_listener(context, approve, b"x" * (MAX_MESSAGE_BYTES + 10) + b"\n")
    assert huge == ApprovalAnswer(approved=False, reason="the approval request was over 1024 KiB")
