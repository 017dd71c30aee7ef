"""A serial port on the asyncio loop: read via `loop.add_reader`, written without blocking.

The link knows bytes and lines, not the protocol: it hands every non-empty line to `on_line`,
calls `on_read` once a chunk was handled, and `on_lost` (with the reason to show) when the port
went away or sent something no Marlin printer sends. The serial host supplies those three.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from workbench_plugins.printing.usb.serial_port import (
    LineBuffer,
    garbage_message,
    open_exclusive,
    release_exclusive,
)

if TYPE_CHECKING:
    from serial import Serial


class SerialLink:
    def __init__(
        self,
        port: str,
        baudrate: int,
        *,
        on_line: Callable[[str], None],
        on_read: Callable[[], None],
        on_lost: Callable[[str], None],
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self._on_line = on_line
        self._on_read = on_read
        self._on_lost = on_lost
        self._serial: Serial | None = None
        self._fd = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lines = LineBuffer()
        self.last_received = time.monotonic()  # `echo:busy` and every other line keep it fresh

    async def open(self) -> None:
        """Open the port exclusively (in a thread: opening may block) and start reading it.

        PortOpenError if it cannot be opened.
        """
        self._loop = asyncio.get_running_loop()
        self._serial = await asyncio.to_thread(
            open_exclusive, self.port, self.baudrate, timeout=0, write_timeout=0
        )
        self._fd = self._serial.fileno()
        os.set_blocking(self._fd, False)
        self._lines.clear()
        self.last_received = time.monotonic()
        self._loop.add_reader(self._fd, self._on_readable)

    @property
    def is_open(self) -> bool:
        return self._fd >= 0

    @property
    def pending(self) -> bytes:
        """What arrived after the last line end."""
        return self._lines.pending

    def write(self, data: bytes) -> None:
        """Write `data` now; OSError when the port went away."""
        written = os.write(self._fd, data)
        if written != len(data):  # a full kernel buffer: rare for one short line
            os.set_blocking(self._fd, True)
            os.write(self._fd, data[written:])
            os.set_blocking(self._fd, False)

    def close(self) -> None:
        """Stop reading and close the port; closing twice is harmless."""
        if self._fd >= 0 and self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._fd)
        if self._fd >= 0:
            release_exclusive(self._fd)
        self._fd = -1
        if self._serial is not None:
            with contextlib.suppress(Exception):
                self._serial.close()
            self._serial = None

    def _on_readable(self) -> None:
        try:
            chunk = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError as error:
            chunk, reason = b"", f"the printer went away ({error.strerror or error})"
        else:
            reason = "the printer went away (the port closed)"
        if not chunk:
            self._on_lost(reason)
            return
        self.last_received = time.monotonic()
        for line in self._lines.feed(chunk):
            if line:
                self._on_line(line)
        if self._lines.overflowing:
            self._lines.clear()
            self._on_lost(garbage_message(self.port, self.baudrate))
            return
        self._on_read()
