"""The desktop app answers approval requests from other processes (an MCP server asking whether
an external agent may print, run a shell command, ...) with a dialog per request.

`DesktopApprovals` runs a `workbench.core.approvals.ApprovalListener` on the GUI's asyncio loop
while the main window is open. Each request gets its own non-modal question (`open()`, never
`exec()`), so several requests can wait at once and the window stays live. A request the asking
process gives up on is withdrawn: its dialog closes. Closing the window answers what is still
open "denied: the desktop app closed".
"""

from __future__ import annotations

import asyncio
import json
import logging

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton, QWidget

from workbench.core.approvals import (
    ApprovalAnswer,
    ApprovalListener,
    ApprovalRequest,
    ApprovalsAlreadyServed,
    ApprovalsUnavailable,
)
from workbench.core.context import AppContext
from workbench.core.events import Notice
from workbench.ui.async_loop import start_task

log = logging.getLogger(__name__)
ARGUMENTS_SHOWN_CHARS = 4000  # the details pane shows the arguments; a huge one is cut


def approval_dialog(parent: QWidget, request: ApprovalRequest) -> QMessageBox:
    """The question for one request: who asks, which tool, what it would do; Approve or Deny."""
    box = QMessageBox(parent)
    box.setObjectName("approve-external-tool")
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Approve a tool call?")
    box.setText(f"{request.caller} asks to run the tool “{request.tool}”.")
    box.setInformativeText(
        f"{request.message}\n\nNothing happens until you approve. Approve only what you expect "
        "the agent to do."
    )
    arguments = json.dumps(request.arguments, indent=2, ensure_ascii=False, default=str)
    if len(arguments) > ARGUMENTS_SHOWN_CHARS:
        arguments = arguments[:ARGUMENTS_SHOWN_CHARS] + "\n…"
    box.setDetailedText(f"Arguments:\n{arguments}")
    approve = box.addButton("Approve", QMessageBox.ButtonRole.AcceptRole)
    approve.setObjectName("approve")
    deny = box.addButton("Deny", QMessageBox.ButtonRole.RejectRole)
    deny.setObjectName("deny")
    box.setDefaultButton(deny)  # acting on the world is opt-in: Enter denies
    box.setEscapeButton(deny)
    return box


class DesktopApprovals(QObject):
    """Listens for approval requests while the window is open; one dialog per request."""

    asked = Signal(object)  # the QMessageBox just opened (tests and screenshots wait for it)

    def __init__(self, context: AppContext, window: QWidget) -> None:
        super().__init__(window)
        self.context = context
        self.parent_window = window
        self.listener = ApprovalListener(context.paths, self.ask)
        self.dialogs: list[QMessageBox] = []
        self.status = "not listening"
        self._stopped = False

    # -- the listener's life --------------------------------------------------------------------
    def start(self) -> None:
        """Start listening on the GUI's loop (returns at once)."""
        self._stopped = False
        try:
            start_task(self._start(), name="approvals-listener")
        except RuntimeError as error:  # a window without an asyncio loop (some tests)
            log.info("approval requests are not answered here: %s", error)

    async def _start(self) -> None:
        try:
            socket = await self.listener.start()
        except ApprovalsAlreadyServed as served:  # another window of this data folder answers
            self.status = str(served)
            log.info("%s", served)
            return
        except (ApprovalsUnavailable, OSError) as error:
            self.status = f"not listening: {error}"
            self.context.bus.publish(
                Notice(
                    source="gui",
                    level="warning",
                    text=f"Approval requests from MCP clients cannot reach this window: {error}",
                )
            )
            return
        self.status = f"listening on {socket}"
        if self._stopped:  # the window closed while the listener started
            self.listener.stop()

    def stop(self) -> None:
        """Stop now: what waits is answered denied and its dialog closed."""
        self._stopped = True
        self.listener.stop()
        for box in list(self.dialogs):
            self._close(box)

    # -- one request ----------------------------------------------------------------------------
    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        """Show the question and wait (on the loop, not the GUI thread) for the person."""
        answered: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        box = approval_dialog(self.parent_window, request)
        approve = box.findChild(QPushButton, "approve")

        def finished(_result: int) -> None:
            if box in self.dialogs:
                self.dialogs.remove(box)
            if not answered.done():
                answered.set_result(box.clickedButton() is approve)
            box.deleteLater()

        box.finished.connect(finished)
        self.dialogs.append(box)
        box.open()
        QApplication.alert(self.parent_window)  # the person may be looking elsewhere
        self.asked.emit(box)
        try:
            approved = await answered
        finally:  # withdrawn (the asker gave up, the window closes): the question goes away
            self._close(box)
        if approved:
            return ApprovalAnswer(approved=True, reason="approved in the desktop app")
        return ApprovalAnswer(approved=False, reason="denied in the desktop app")

    def _close(self, box: QMessageBox) -> None:
        if box in self.dialogs:
            self.dialogs.remove(box)
            if shiboken6.isValid(box):
                box.done(QMessageBox.StandardButton.Cancel.value)
