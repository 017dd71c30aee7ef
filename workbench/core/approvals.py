"""The desktop app's approval prompt, reachable from other processes (an MCP server, ...).

A tool that acts on the world (physical, shell) needs a person's yes. A headless process that has
no person at hand asks the desktop app, when one is open on the same WORKBENCH_HOME: the app
listens on a Unix socket in a private (0700) runtime folder, the socket itself 0600, so only this
user's processes reach it. One request per connection, one JSON line each way:

    client -> {"protocol": 1, "request": {caller, tool, arguments, message}}
    app    -> {"approved": true|false, "reason": "..."}

`ask_desktop` is the asking side (None: no app listens); `ApprovalListener` the answering side,
Qt-free, so the GUI only supplies the dialog. A client that gives up closes its connection, and
the listener then withdraws the question (the dialog goes away).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from workbench.core.local_socket import (
    LocalServer,
    ProcessLock,
    check_socket_path_length,
    raising_as,
    runtime_folder,
    serve_unix_socket,
    verify_private,
)
from workbench.core.paths import AppPaths

log = logging.getLogger(__name__)
PROTOCOL_VERSION = 1
SOCKET_NAME = "approvals.sock"
LOCK_NAME = "approvals.lock"
MAX_MESSAGE_BYTES = 1024 * 1024  # a request is a tool call's arguments: kilobytes
PURPOSE = "approval requests"  # in messages: "... so Workbench does not use it for <PURPOSE>"
CONNECT_TIMEOUT_S = 5.0
CLOSED_REASON = "the desktop app closed"


class ApprovalRequest(BaseModel):
    caller: str  # who asks, in words: "MCP client 'claude-code' (stdio)"
    tool: str
    arguments: dict[str, Any]
    message: str  # what a person must read before saying yes (paths, the command, ...)


class ApprovalAnswer(BaseModel):
    approved: bool
    reason: str = ""  # "denied in the desktop app", "no answer within 300 s", ...


class ApprovalsUnavailable(RuntimeError):
    """The approvals socket cannot be used here (its folder is not private, its path too long)."""


class ApprovalsAlreadyServed(RuntimeError):
    """Another process (another window of the desktop app) already answers approvals."""

    def __init__(self, owner: str) -> None:
        super().__init__(
            f"Another Workbench window ({owner}) already answers approval requests for this "
            "data folder; requests from MCP clients appear there."
        )
        self.owner = owner


# -- where --------------------------------------------------------------------------------------
def approvals_socket(paths: AppPaths, *, create: bool = False) -> Path:
    """Where the desktop app listens for approval requests, in this data folder's private
    runtime folder (the printer host's too); create: make that folder. ApprovalsUnavailable when
    the folder is not private or the path too long for a Unix socket."""
    with raising_as(ApprovalsUnavailable):
        folder = runtime_folder(paths, create=create, purpose=PURPOSE)
        return check_socket_path_length(folder / SOCKET_NAME, purpose=PURPOSE)


def _encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), default=str).encode() + b"\n"


# -- asking -------------------------------------------------------------------------------------
async def ask_desktop(
    paths: AppPaths, request: ApprovalRequest, timeout_s: float = 300.0
) -> ApprovalAnswer | None:
    """Ask the desktop app's person; None when no desktop app listens (the caller then refuses
    the call). A timeout, or an app that stops without answering, is a refusal with its reason."""
    try:
        socket_file = approvals_socket(paths)
        if not socket_file.exists():
            return None
        # the folders are ours and private: no other user can stand in for the app and approve
        with raising_as(ApprovalsUnavailable):
            verify_private(socket_file, purpose=PURPOSE)
    except ApprovalsUnavailable as problem:
        return ApprovalAnswer(approved=False, reason=str(problem))
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(str(socket_file), limit=MAX_MESSAGE_BYTES),
            CONNECT_TIMEOUT_S,
        )
    except (OSError, TimeoutError):  # refused (a stale socket), removed meanwhile, no answer
        return None
    try:
        writer.write(_encode({"protocol": PROTOCOL_VERSION, "request": request.model_dump()}))
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), timeout_s)
    except TimeoutError:
        return ApprovalAnswer(
            approved=False, reason=f"no answer in the desktop app within {timeout_s:g} s"
        )
    except (OSError, ValueError) as error:
        return ApprovalAnswer(
            approved=False, reason=f"the desktop app did not answer ({type(error).__name__})"
        )
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return _answer_from(line)


def _answer_from(line: bytes) -> ApprovalAnswer:
    if not line:
        return ApprovalAnswer(approved=False, reason="the desktop app stopped without answering")
    try:
        return ApprovalAnswer.model_validate_json(line)
    except ValidationError:
        return ApprovalAnswer(approved=False, reason="the desktop app's answer was unreadable")


# -- answering ----------------------------------------------------------------------------------
OnRequest = Callable[[ApprovalRequest], Awaitable[ApprovalAnswer]]


class ApprovalListener:
    """Answers approval requests with `on_request` (the GUI's dialog) while started.

    One listener per data folder: an exclusive lock beside the socket says who listens. A second
    app finds the lock taken and leaves the live socket alone (ApprovalsAlreadyServed); a socket
    left by an app that died has no lock holder and is replaced."""

    def __init__(self, paths: AppPaths, on_request: OnRequest) -> None:
        self.paths = paths
        self.on_request = on_request
        self.socket: Path | None = None
        self._lock: ProcessLock | None = None
        self._server: LocalServer | None = None
        self._pending: dict[asyncio.Task[Any], asyncio.StreamWriter] = {}

    @property
    def listening(self) -> bool:
        return self._server is not None

    @property
    def pending(self) -> int:
        """Requests waiting for their answer."""
        return len(self._pending)

    async def start(self) -> Path:
        """Listen; returns the socket. ApprovalsAlreadyServed when another process listens,
        ApprovalsUnavailable when the runtime folder cannot be used."""
        if self._server is not None:
            return approvals_socket(self.paths)
        socket_file = approvals_socket(self.paths, create=True)
        lock = ProcessLock(socket_file.parent / LOCK_NAME, purpose=PURPOSE)
        with raising_as(ApprovalsUnavailable, held=ApprovalsAlreadyServed):
            lock.claim()
        try:
            self._server = await serve_unix_socket(
                socket_file, self._connection, limit=MAX_MESSAGE_BYTES
            )
        except BaseException:
            lock.release()
            raise
        self._lock = lock
        self.socket = socket_file
        log.info("answering approval requests on %s", socket_file)
        return socket_file

    def stop(self) -> None:
        """Stop listening, now (a window's close calls it): pending requests are answered
        denied ("the desktop app closed") and their questions withdrawn."""
        if self._server is not None:
            self._server.close()
            self._server = None
        closed = _encode(ApprovalAnswer(approved=False, reason=CLOSED_REASON).model_dump())
        for task, writer in list(self._pending.items()):
            with contextlib.suppress(OSError, RuntimeError):
                writer.write(closed)  # a Unix socket takes it at once; close flushes the rest
                writer.close()
            task.cancel()
        self._pending.clear()
        if self.socket is not None:
            self.socket.unlink(missing_ok=True)
            self.socket = None
        if self._lock is not None:
            self._lock.release()  # and the folder, when no printer host uses it
            self._lock = None

    # -- one request per connection -------------------------------------------------------------
    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - asyncio always runs handlers in a task
            writer.close()
            return
        self._pending[task] = writer
        try:
            answer = await self._answer(reader)
            if self._pending.pop(task, None) is not None:
                writer.write(_encode(answer.model_dump()))
                await writer.drain()
        except asyncio.CancelledError:
            pass  # stop() answered it already
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass  # the asking process went away (gave up, or stopped)
        finally:
            self._pending.pop(task, None)
            writer.close()

    async def _answer(self, reader: asyncio.StreamReader) -> ApprovalAnswer:
        try:
            line = await reader.readline()
        except ValueError:  # over the limit
            return ApprovalAnswer(
                approved=False,
                reason=f"the approval request was over {MAX_MESSAGE_BYTES // 1024} KiB",
            )
        try:
            message = json.loads(line)
            if message.get("protocol") != PROTOCOL_VERSION:
                return ApprovalAnswer(
                    approved=False,
                    reason=f"the desktop app speaks approval protocol {PROTOCOL_VERSION}, the "
                    f"asking process {message.get('protocol')}: use the same Workbench version",
                )
            request = ApprovalRequest.model_validate(message.get("request"))
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError, ValidationError):
            return ApprovalAnswer(approved=False, reason="the approval request was unreadable")
        try:
            return await _until_hang_up(self.on_request(request), reader)
        except ConnectionError:
            raise
        except Exception as error:  # a broken prompt must refuse, never approve
            log.exception("asking the person about %s failed", request.tool)
            return ApprovalAnswer(
                approved=False, reason=f"the desktop app could not ask ({type(error).__name__})"
            )


async def _until_hang_up(
    question: Awaitable[ApprovalAnswer], reader: asyncio.StreamReader
) -> ApprovalAnswer:
    """The person's answer; if the asking process hangs up first (it gave up), the question is
    withdrawn (cancelled) and ConnectionError raised."""
    asked = asyncio.ensure_future(question)
    hang_up = asyncio.ensure_future(reader.read(1))  # the client sends nothing after its request
    try:
        await asyncio.wait({asked, hang_up}, return_when=asyncio.FIRST_COMPLETED)
        if not asked.done():
            raise ConnectionError("the asking process hung up")
        return asked.result()
    finally:
        for future in (asked, hang_up):
            future.cancel()
