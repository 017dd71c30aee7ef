"""The M115 handshake the printer panel waits for before it lets anyone print on a USB port.

Opening a port proves nothing: a machine's built-in serial port opens and swallows G-code without
a word. After Connect, the printer must answer M115 (its FIRMWARE_NAME line) within `timeout_s`;
a printer that talks G-code (an `ok`, a temperature report) but names no firmware is accepted at
the deadline (some boards do not name themselves).
What the printer says reaches the panel as the host's "rx" events, whichever process hosts the
port, so the handshake only listens: the panel sends M115 when the connect did not already.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

HANDSHAKE_S = 5.0  # an MK3 resets when the port opens and answers ~2 s later
MARLIN_LINES = ("ok", "T:", "Cap:", "echo:", "FIRMWARE_NAME:")
_FIELD = re.compile(r"\s(?=[A-Z_]{4,}:)")  # M115's fields: "FIRMWARE_NAME:... MACHINE_TYPE:..."


def speaks_gcode(line: str) -> bool:
    """A line only a G-code firmware sends (the host passes on few plain `ok`s: one per line)."""
    text = line.strip()
    return text == "start" or text.startswith(MARLIN_LINES)


def firmware_fields(line: str) -> dict[str, str]:
    """M115's FIRMWARE_NAME line as its fields ({"FIRMWARE_NAME": "Marlin 2.1.2", ...})."""
    fields = {}
    for part in _FIELD.split(line.strip()):
        key, _, value = part.partition(":")
        if key and value:
            fields[key.strip()] = value.strip()
    return fields


def describe_firmware(line: str) -> str:
    """For people: "Prusa-Firmware 3.13.3 on a Prusa i3 MK3S"; "" for an empty line."""
    fields = firmware_fields(line)
    name = fields.get("FIRMWARE_NAME", "")
    if not name:
        return ""
    machine = fields.get("MACHINE_TYPE", "")
    return f"{name} on a {machine}" if machine else name


def silent_message(port: str, timeout_s: float, baudrate: int) -> str:
    return (
        f"No answer to M115 from {port} within {timeout_s:g} s: not a printer, or the wrong baud "
        f"rate ({baudrate} now; Prusa printers use 115200, some Marlin boards 250000). The port "
        "was closed again; choose another one, or set the baud rate in Printers…"
    )


class SerialHandshake(QObject):
    """`answered(port, firmware line or "")` or `silent(port, why)`, once per `begin`."""

    answered = Signal(str, str)
    silent = Signal(str, str)

    def __init__(self, parent: QObject | None = None, timeout_s: float = HANDSHAKE_S) -> None:
        super().__init__(parent)
        self.timeout_s = timeout_s
        self.port = ""  # the port being asked; "" when no handshake runs
        self.baudrate = 115200
        self._heard_ok = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._deadline)

    @property
    def running(self) -> bool:
        return bool(self.port)

    def begin(self, port: str, baudrate: int) -> None:
        """Connect was clicked: listen to `port` from now on (its answer may come before the
        connect's own result does)."""
        self.port, self.baudrate, self._heard_ok = port, baudrate, False
        self._timer.stop()

    def port_open(self, snapshot: dict[str, Any]) -> bool:
        """The host opened the port: start the clock. True when M115 still has to be asked
        (the printer was already connected, so the connect sent nothing)."""
        if not self.running:
            return False
        firmware = str(snapshot.get("firmware") or "")
        if firmware:  # a host that did the handshake itself says what answered
            self._finish(firmware)
            return False
        self._timer.start(int(self.timeout_s * 1000))
        return not self._heard_ok

    def heard(self, port: str, line: str) -> None:
        if port != self.port:
            return
        if "FIRMWARE_NAME:" in line:
            self._finish(line)
        elif speaks_gcode(line):
            self._heard_ok = True

    def lost(self, port: str, why: str) -> None:
        """The port closed during the handshake (unplugged, garbage at a wrong baud rate)."""
        if port == self.port:
            self._fail(f"{port} closed before it answered M115: {why}")

    def cancel(self) -> None:
        self.port = ""
        self._timer.stop()

    def _deadline(self) -> None:
        if not self.running:
            return
        if self._heard_ok:  # it speaks G-code, but does not name its firmware
            self._finish("")
        else:
            self._fail(silent_message(self.port, self.timeout_s, self.baudrate))

    def _finish(self, firmware: str) -> None:
        port = self.port
        self.cancel()
        self.answered.emit(port, firmware)

    def _fail(self, why: str) -> None:
        port = self.port
        self.cancel()
        self.silent.emit(port, why)
