"""The printer host's Unix socket server (asyncio streams), on the printers' loop.

One host per user: `claim()` takes an exclusive lock beside the socket and writes who holds it, so
a second host learns which process already hosts (HostAlreadyRunning). The socket lives in a 0700
folder and is itself 0600: only this user's processes reach the printers.
Requests go to `dispatch` (host_ops.SerialPrinters.call); subscribers get every printer event.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from workbench_plugins.printing.host.protocol import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    HostAlreadyRunning,
    HostCallError,
    decode,
    encode,
    error_reply,
)

log = logging.getLogger(__name__)
Dispatch = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
SUBSCRIBER_BACKLOG = 500  # events queued for a slow subscriber before older ones are dropped


def this_process() -> str:
    """How the lock and `hello` name the hosting process to people."""
    program = Path(sys.argv[0]).name
    if program in ("__main__.py", "-c", ""):  # python -m workbench
        program = "workbench"
    command = " ".join([program, *sys.argv[1:]])[:160]
    return f"process {os.getpid()} ({command})"


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


class HostServer:
    def __init__(self, socket: Path, lock: Path, dispatch: Dispatch) -> None:
        self.socket = socket
        self.lock = lock
        self.dispatch = dispatch
        self.started = time.time()
        self._lock_fd: int | None = None
        self._server: asyncio.Server | None = None
        self._subscribers: set[asyncio.Queue[dict[str, Any] | None]] = set()
        self._connections: set[asyncio.Task[Any]] = set()

    # -- one per user -------------------------------------------------------------------------
    def claim(self) -> None:
        """Take the host's lock (any thread); HostAlreadyRunning names the process holding it."""
        while True:
            try:
                fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o600)
            except FileNotFoundError:  # a host that stopped just removed the folder
                self.lock.parent.mkdir(mode=0o700, exist_ok=True)
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = os.read(fd, 4096).decode(errors="replace").strip() or "another process"
                os.close(fd)
                raise HostAlreadyRunning(owner) from None
            if _same_file(fd, self.lock):
                break
            os.close(fd)  # the previous host removed it between our open and lock: again
        os.ftruncate(fd, 0)
        os.write(fd, this_process().encode())
        self._lock_fd = fd

    def release(self) -> None:
        """Remove the lock file, then drop the lock (claim checks it locked the current file)."""
        if self._lock_fd is not None:
            self.lock.unlink(missing_ok=True)
            os.close(self._lock_fd)
            self._lock_fd = None
            with contextlib.suppress(OSError):  # empty now: leave nothing behind
                self.lock.parent.rmdir()

    # -- serving ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Listen (after claim): a socket file left by a host that died is replaced."""
        self.socket.unlink(missing_ok=True)
        self._server = await asyncio.start_unix_server(
            self._connection, path=str(self.socket), limit=MAX_MESSAGE_BYTES
        )
        os.chmod(self.socket, 0o600)
        log.info("printer host listening on %s", self.socket)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for queue in list(self._subscribers):
            queue.put_nowait(None)  # each stream ends and closes its connection
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.wait(list(self._connections), timeout=2)
        self.socket.unlink(missing_ok=True)
        self.release()

    def hello(self) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL_VERSION,
            "pid": os.getpid(),
            "host": this_process(),
            "started": self.started,
            "socket": str(self.socket),
        }

    def publish(self, event: dict[str, Any]) -> None:
        """A printer event to every subscriber (on the loop); a slow one loses old events."""
        for queue in self._subscribers:
            if queue.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
            queue.put_nowait(event)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            await self._converse(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went away; what it asked for goes on
        except ValueError as error:  # a line over the limit
            with contextlib.suppress(ConnectionError):
                writer.write(encode(error_reply(None, HostCallError(str(error), kind="protocol"))))
        finally:
            if task is not None:
                self._connections.discard(task)
            writer.close()

    async def _converse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while line := await reader.readline():
            number: object = None
            try:
                request = decode(line)
                number, op = request.get("id"), str(request.get("op", ""))
                if op == "subscribe":
                    writer.write(encode({"id": number, "ok": True, "result": self.hello()}))
                    await self._stream(writer)
                    return
                result = await self._answer(op, request)
                reply: dict[str, Any] = {"id": number, "ok": True, "result": result}
            except Exception as error:  # every failure goes back to the client, in words
                if not isinstance(error, HostCallError):
                    log.exception("printer host request failed")
                reply = error_reply(number, error)
            writer.write(encode(reply))
            await writer.drain()

    async def _answer(self, op: str, request: dict[str, Any]) -> dict[str, Any]:
        if op == "hello":
            wanted = request.get("protocol")
            if wanted != PROTOCOL_VERSION:
                raise HostCallError(
                    f"this printer host ({this_process()}) speaks protocol {PROTOCOL_VERSION}, "
                    f"the client {wanted}: restart the host with the same Workbench version",
                    kind="protocol",
                )
            return self.hello()
        arguments = {k: v for k, v in request.items() if k not in ("id", "op")}
        return await self.dispatch(op, arguments)

    async def _stream(self, writer: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(SUBSCRIBER_BACKLOG)
        self._subscribers.add(queue)
        try:
            await writer.drain()
            while (event := await queue.get()) is not None:
                writer.write(encode(event))
                await writer.drain()
        finally:
            self._subscribers.discard(queue)
