"""Talking to the printer host from another process: one connection per request, and a
subscription that follows the host's printer events (the desktop app's panel, as a client).

HostUnavailable means nobody answers on the socket (no host runs); a host that answers but
refuses raises HostCallError with its words.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from workbench_plugins.printing.host.protocol import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    HostCallError,
    HostUnavailable,
    decode,
    encode,
    result_of,
    verify_runtime,
)

CONNECT_TIMEOUT_S = 3.0
# how long the host may take to answer: connecting waits for an MK3 to boot, resuming after a
# restart re-heats the printer and waits for its temperatures
TIMEOUTS_S = {"connect": 60.0, "print": 120.0, "resume": 1800.0, "resume_from_layer": 1800.0}
DEFAULT_TIMEOUT_S = 60.0
_numbers = itertools.count(1)


class HostClient:
    def __init__(self, socket: Path) -> None:
        self.socket = socket

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
        verify_runtime(self.socket)
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_unix_connection(str(self.socket), limit=MAX_MESSAGE_BYTES),
                CONNECT_TIMEOUT_S,
            )
        except (FileNotFoundError, ConnectionRefusedError, TimeoutError) as error:
            raise HostUnavailable(f"no printer host answers on {self.socket} ({error})") from None
        try:
            yield reader, writer
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _exchange(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, message: dict[str, Any]
    ) -> dict[str, Any]:
        number = next(_numbers)
        writer.write(encode({"id": number, **message}))
        await writer.drain()
        line = await reader.readline()
        if not line:
            raise HostCallError(
                f"the printer host closed the connection during {message.get('op')!r}; it may "
                "have stopped. Check with get_printer_status.",
                kind="host",
            )
        return result_of(decode(line))

    async def hello(self) -> dict[str, Any]:
        """Who hosts (pid, command, socket); HostUnavailable when nobody does."""
        async with self._connection() as (reader, writer):
            return await asyncio.wait_for(
                self._exchange(reader, writer, {"op": "hello", "protocol": PROTOCOL_VERSION}),
                DEFAULT_TIMEOUT_S,
            )

    async def call(self, op: str, **arguments: Any) -> dict[str, Any]:
        async with self._connection() as (reader, writer):
            hello = {"op": "hello", "protocol": PROTOCOL_VERSION}
            host = await asyncio.wait_for(self._exchange(reader, writer, hello), DEFAULT_TIMEOUT_S)
            timeout = TIMEOUTS_S.get(op, DEFAULT_TIMEOUT_S)
            try:
                return await asyncio.wait_for(
                    self._exchange(reader, writer, {"op": op, **arguments}), timeout
                )
            except (ConnectionError, asyncio.IncompleteReadError) as error:
                raise HostCallError(
                    f"the printer host ({host.get('host')}) went away during {op!r} ({error})",
                    kind="host",
                ) from None
            except TimeoutError:
                raise HostCallError(
                    f"the printer host ({host.get('host')}) did not answer {op!r} within "
                    f"{timeout:.0f} s; it may still be working on it: check the status.",
                    kind="host",
                ) from None

    async def follow(self, on_event: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Pass each printer event of the host to `on_event` until the host goes away; returns
        the host's hello. HostUnavailable when no host runs."""
        async with self._connection() as (reader, writer):
            hello = await self._exchange(
                reader, writer, {"op": "hello", "protocol": PROTOCOL_VERSION}
            )
            await self._exchange(reader, writer, {"op": "subscribe"})
            with contextlib.suppress(ConnectionError, asyncio.IncompleteReadError):
                while line := await reader.readline():
                    with contextlib.suppress(HostCallError):  # a broken line: skip it
                        on_event(decode(line))
            return hello
