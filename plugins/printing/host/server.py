"""The printer host's Unix socket server (asyncio streams), on the printers' loop.

One host per user: `claim()` takes an exclusive lock beside the socket and writes who holds it, so
a second host learns which process already hosts (HostAlreadyRunning). The socket lives in a 0700
folder and is itself 0600: only this user's processes reach the printers.
Requests go to `dispatch` (host_ops.SerialPrinters.call); subscribers get every printer event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from workbench.core.local_socket import (
    LocalServer,
    ProcessLock,
    raising_as,
    serve_unix_socket,
    this_process,
)
from workbench_plugins.printing.host.protocol import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    PURPOSE,
    HostAlreadyRunning,
    HostCallError,
    decode,
    encode,
    error_reply,
)
from workbench_plugins.printing.usb.serial_port import SerialHostError

log = logging.getLogger(__name__)
Dispatch = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
SUBSCRIBER_BACKLOG = 500  # events queued for a slow subscriber before older ones are dropped


class HostServer:
    def __init__(self, socket: Path, lock: Path, dispatch: Dispatch) -> None:
        self.socket = socket
        self.lock = lock
        self.dispatch = dispatch
        self.started = time.time()
        self._process_lock = ProcessLock(lock, purpose=PURPOSE)
        self._server: LocalServer | None = None
        self._subscribers: set[asyncio.Queue[dict[str, Any] | None]] = set()
        self._connections: set[asyncio.Task[Any]] = set()
        self._stopping = False

    # -- one per user -------------------------------------------------------------------------
    def claim(self) -> None:
        """Take the host's lock (any thread); HostAlreadyRunning names the process holding it."""
        with raising_as(SerialHostError, held=HostAlreadyRunning):
            self._process_lock.claim()

    def release(self) -> None:
        """Remove the lock file, then drop the lock (claim checks it locked the current file)."""
        self._process_lock.release()

    # -- serving ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Listen (after claim): a socket file left by a host that died is replaced."""
        self._server = await serve_unix_socket(
            self.socket, self._connection, limit=MAX_MESSAGE_BYTES
        )
        log.info("printer host listening on %s", self.socket)

    async def stop(self) -> None:
        self._stopping = True  # a connection accepted just before, not yet running, ends at once
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
            if not self._stopping:  # else a subscriber would wait for events forever
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
