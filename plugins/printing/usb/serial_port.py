"""The printer's serial port: opened exclusively, read as capped lines, and the M115 handshake.

The port is always opened locked twice over, so a second host, a slicer or a `doctor` check
cannot talk into a running print: pyserial's `exclusive=True` (an flock, which programs using
pyserial or flock respect) and the tty's own exclusive mode TIOCEXCL (the kernel refuses every
further open of the tty by anyone but root). Both end when the port is closed.
A line longer than MAX_LINE_BYTES is not a Marlin answer (wrong baud rate, another device):
readers stop there and say so instead of buffering without end.
pyserial is imported only when a port is opened: the plugin loads (and `doctor` reports it
missing) without it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import termios
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from serial import Serial

MAX_LINE_BYTES = 64 * 1024  # Marlin lines are < 100 bytes; this is far beyond any real one


class SerialHostError(Exception):
    pass


class PortBusy(SerialHostError):
    """Another program (or host) holds the port: it may be printing, so it was not disturbed."""


class PortOpenError(SerialHostError):
    """The port could not be opened; `reason` is the system's word for why."""

    def __init__(self, port: str, reason: str, *, locked: bool) -> None:
        super().__init__(f"cannot open {port}: {reason}")
        self.reason = reason
        self.locked = locked  # another program holds the port

    @property
    def explanation(self) -> str:
        """For people: in use by another program, or the system's reason."""
        if self.locked:
            return (
                "it is in use by another program (a printer host, a slicer, a terminal, or "
                f"another Workbench): close that program first ({self.reason})"
            )
        return self.reason


def _is_busy(error: BaseException) -> bool:
    text = str(error).lower()
    return (
        getattr(error, "errno", None) in (errno.EBUSY, errno.EAGAIN, errno.EWOULDBLOCK)
        or "lock" in text
        or "busy" in text
        or "temporarily unavailable" in text
    )


def open_exclusive(port: str, baudrate: int, *, timeout: float, write_timeout: float) -> Serial:
    """Open `port` locked against every other program (blocking); PortOpenError if it cannot."""
    import serial  # pyserial

    try:
        link = serial.Serial(
            port, baudrate, timeout=timeout, write_timeout=write_timeout, exclusive=True
        )
    except (serial.SerialException, OSError) as error:
        raise PortOpenError(port, str(error), locked=_is_busy(error)) from None
    try:
        fcntl.ioctl(link.fileno(), termios.TIOCEXCL)
    except OSError as error:  # not a tty (a test double, a socket): the flock still holds
        if error.errno not in (errno.ENOTTY, errno.EINVAL):
            link.close()
            raise PortOpenError(port, f"cannot lock the port: {error}", locked=False) from None
    return link


def release_exclusive(fd: int) -> None:
    """Leave the tty's exclusive mode before closing (the kernel also clears it on last close)."""
    with contextlib.suppress(OSError):
        fcntl.ioctl(fd, termios.TIOCNXCL)


def garbage_message(port: str, baudrate: int) -> str:
    return (
        f"{port} sent more than {MAX_LINE_BYTES // 1024} KiB without a line end, which no Marlin "
        f"printer does, so the link was closed. Check the baud rate (serial_baudrate = "
        f"{baudrate} in the printing settings) and that this port is the printer's."
    )


class LineBuffer:
    """Bytes in, the complete lines they end out (decoded, stripped); keeps the partial rest."""

    def __init__(self) -> None:
        self.pending = b""

    def feed(self, chunk: bytes) -> list[str]:
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        return [raw.decode("ascii", errors="replace").strip() for raw in lines]

    @property
    def overflowing(self) -> bool:
        """The partial line is longer than any Marlin line: this is not a Marlin printer talking."""
        return len(self.pending) > MAX_LINE_BYTES

    def clear(self) -> None:
        self.pending = b""


def firmware_handshake(port: str, baudrate: int = 115200, timeout_s: float = 5.0) -> str:
    """Open `port`, send M115 and return the firmware line; SerialHostError says what failed.

    Blocking (pyserial, 0.1 s reads): for `doctor` and scripts, never on the GUI thread. A printer
    that resets when the port opens (MK3) prints `start` when it is up; M115 is sent again then,
    since the first one may have gone to the bootloader.
    """
    import serial  # pyserial

    try:
        link = open_exclusive(port, baudrate, timeout=0.1, write_timeout=1.0)
    except PortOpenError as failed:
        if failed.locked:
            raise PortBusy(f"{port} is in use by another program ({failed.reason})") from None
        raise SerialHostError(f"cannot open {port}: {failed.reason}") from None
    with link:
        try:
            return _ask_firmware(link, port, baudrate, timeout_s)
        except (serial.SerialException, OSError) as error:  # unplugged while asking
            raise SerialHostError(f"{port} failed while asking M115: {error}") from None


def _ask_firmware(link: Serial, port: str, baudrate: int, timeout_s: float) -> str:
    link.write(b"M115\n")
    lines = LineBuffer()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for line in lines.feed(link.read(max(1, link.in_waiting))):
            if "FIRMWARE_NAME" in line:
                return line
            if line == "start":
                link.write(b"M115\n")
            elif line.startswith("ok"):
                return "answered M115 with ok, but without a FIRMWARE_NAME line"
        if lines.overflowing:
            raise SerialHostError(garbage_message(port, baudrate))
    raise SerialHostError(f"{port} opened, but nothing answered M115 within {timeout_s:g} s")
