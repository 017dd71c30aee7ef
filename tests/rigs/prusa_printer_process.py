"""OctoPrint's virtual printer speaking as a Prusa MK3S, for the real PrusaLink (run by the
OctoPrint rig's python, like tests/rigs/virtual_printer_process.py, whose pty bridge and printer
it reuses).

Why not the virtual printer as it is: PrusaLink 0.8.1 takes a serial port only when the printer
answers `PRUSA Fir` with a firmware version and `M862.2 Q` with a Prusa printer type code, then
reads its EEPROM (`D3 Ax.. C..`, and writes the job id there), asks `M862.1 Q`, `PRUSA SN`, `M73`,
`M220`/`M221`, and changes the job's state on Prusa's host-action lines (`// action:paused` after
M601, `// action:resumed` after M602, `// action:cancel` after M603). Its temperature pattern
wants Prusa's report (`T:.. /.. B:.. /.. T0:.. /.. @:.. B@:.. P:..`). The virtual printer answers
a bare `ok` to all of those and reports temperatures Marlin's way, so PrusaLink would find no
printer. This adapter sits between the bridge and the unchanged virtual printer: it adds those
Prusa answers (each just before the printer's own `ok` to that line) and rewrites its temperature
reports; moves, heating, line numbers and checksums stay the virtual printer's.

Same command line and control words as virtual_printer_process.py (which see).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from virtual_printer_process import make_printer, serve

FIRMWARE = "3.14.1-8237"  # PrusaLink's pattern: digits.digits.digits-build
MK3S = "302"  # M862.2 Q: the printer type code of an MK3S
SERIAL_NUMBER = "CZPX1234X004XK12345"
PROBE = "PRUSA Fir"  # with M862.2 Q, how PrusaLink recognises a Prusa printer on a port
PRUSA_SETTINGS = {
    "firmwareName": f"Prusa-Firmware {FIRMWARE.split('-')[0]} based on Marlin",
    "m115FormatString": (
        "FIRMWARE_NAME:{firmware_name} SOURCE_CODE_URL:https://github.com/prusa3d/Prusa-Firmware "
        "PROTOCOL_VERSION:1.0 MACHINE_TYPE:Prusa i3 MK3S EXTRUDER_COUNT:1"
    ),
    "okFormatString": "ok",
    "sendWait": False,  # Prusa firmware does not say `wait` when idle
    "simulated_errors": [],  # resends are the USB host's tests, not PrusaLink's
}
_NUMBERED = re.compile(r"^N\d+\s+(.*?)\s*\*\d+$")
_D3 = re.compile(r"^D3 Ax([0-9A-Fa-f]+)(?: C(\d+))?(?: X([0-9A-Fa-f]+))?")
_M73 = re.compile(r"^M73(?: P(\d+))?(?: R(\d+))?")
_HEATING = re.compile(r"^([TB]):(-?[\d.]+)$")
_TEMPS = re.compile(
    r"^(?P<ok>ok )?T:(?P<t>-?[\d.]+) ?/ ?(?P<tt>-?[\d.]+) B:(?P<b>-?[\d.]+) ?/ ?(?P<bt>-?[\d.]+)"
)


class Line:
    """A line the printer got: what to answer before its `ok`, and whether that `ok` is left out."""

    def __init__(self, command: str, answers: list[str]) -> None:
        self.command, self.answers, self.silent, self.answered = command, answers, False, False


class PrusaFlavour:
    """The virtual printer as the bridge sees it (write / readline), answering as Prusa firmware.

    A line's Prusa answer goes out just before the printer's `ok` to that line: the printer
    answers every line with one `ok`, in order (its error injections are off), so the answers
    wait in a queue, one entry per line written, until its `ok` comes by.

    One deviation: PrusaLink probes a port by writing `PRUSA Fir` and `M862.2 Q` at once and
    stops reading at the two answers; the `ok`s a real printer sends after them are then read as
    the confirmation of PrusaLink's next command (a race in PrusaLink 0.8.1 that can stall its
    queue for 25 s). The rig leaves those two `ok`s out, so that it comes up the same way always.
    """

    def __init__(self, printer: Any) -> None:
        self.printer = printer
        self.eeprom: dict[int, int] = {}
        self.percent, self.remaining = 0, 0
        self.lock = threading.Condition()
        self.pending: collections.deque[Line] = collections.deque()
        self.last = Line("", [])
        self.reporting = False
        self.ready: collections.deque[bytes] = collections.deque()

    def write(self, data: bytes) -> int:
        text = data.decode("ascii", errors="replace").strip()
        match = _NUMBERED.match(text)
        command = match.group(1) if match else text
        line = Line(command, self._answers(command))
        if command == PROBE and not self.reporting:
            self._report_temperatures()
        with self.lock:
            if command == "M862.2 Q" and self.last.command == PROBE and not self.last.answered:
                self.last.silent = line.silent = True  # the port probe: see above
            self.pending.append(line)
            self.last = line
            self.lock.notify_all()
        return int(self.printer.write(data))

    def _report_temperatures(self) -> None:
        """PrusaLink 0.8.1 asks for temperature reports (M155) only after a minute without one;
        this printer reports every 2 s from when PrusaLink first probes it, as it would once
        asked. The `ok` to this line of its own is left out."""
        self.reporting = True
        line = Line("M155 S2", [])
        line.silent = True
        with self.lock:
            self.pending.append(line)
        self.printer.write(b"M155 S2\n")

    def readline(self) -> bytes:
        while True:
            if self.ready:
                return self.ready.popleft()
            raw = bytes(self.printer.readline())
            if not raw.startswith(b"ok"):
                return self._prusa_temperatures(raw)
            with self.lock:
                line = self.pending.popleft() if self.pending else Line("", [])
                if line.command == PROBE and not self.pending:  # is M862.2 Q on its way?
                    self.lock.wait_for(lambda: bool(self.pending), timeout=0.3)
                line.answered = True
            self.ready.extend(f"{answer}\n".encode() for answer in line.answers)
            if not line.silent:
                self.ready.append(self._prusa_temperatures(raw))

    def _prusa_temperatures(self, raw: bytes) -> bytes:
        """Marlin's temperature reports as Prusa firmware words them (PrusaLink's patterns)."""
        text = raw.decode("ascii", errors="replace").strip()
        if heating := _HEATING.match(text):  # while M109 / M190 wait
            nozzle = float(self.printer.temp[0])
            if heating[1] == "T":
                return f"T:{float(heating[2]):.1f} E:0 W:?\n".encode()
            return f"T:{nozzle:.1f} E:0 B:{float(heating[2]):.1f}\n".encode()
        match = _TEMPS.match(text)
        if not match:
            return raw
        t, tt, b, bt = (float(match[k]) for k in ("t", "tt", "b", "bt"))
        report = f"T:{t:.1f} /{tt:.1f} B:{b:.1f} /{bt:.1f} T0:{t:.1f} /{tt:.1f} @:0 B@:0 P:0.0"
        return f"{match['ok'] or ''}{report} A:25.0\n".encode()

    def close(self) -> None:
        self.printer.close()

    def _answers(self, command: str) -> list[str]:
        fixed = {
            PROBE: [FIRMWARE],
            "M862.2 Q": [MK3S],
            "M862.1 Q": ["0.40"],
            "PRUSA SN": [SERIAL_NUMBER],
            "M220": ["100%"],
            "M221": ["100%"],
            "M601": ["// action:paused"],
            "M602": ["// action:resumed"],
            "M603": ["// action:cancel"],
            "M420": ["Mesh bed leveling not active."],
            "M21": ["echo:SD card ok"],
        }
        if command in fixed:
            return fixed[command]
        if d3 := _D3.match(command):
            return self._eeprom(int(d3[1], 16), int(d3[2] or 0), d3[3])
        if m73 := _M73.match(command):
            if m73[1] is None and m73[2] is None:  # a query: Prusa reports what it was told
                return [
                    f"NORMAL MODE: Percent done: {self.percent}; print time remaining in mins: "
                    f"{self.remaining}; Change in mins: -1"
                ]
            self.percent = int(m73[1] or self.percent)
            self.remaining = int(m73[2] or self.remaining)
        return []

    def _eeprom(self, address: int, count: int, write: str | None) -> list[str]:
        """Prusa's D3: `X<hex>` writes bytes at the address; `C<n>` reads n bytes, 16 a line."""
        with self.lock:
            if write is not None:
                for offset, start in enumerate(range(0, len(write), 2)):
                    self.eeprom[address + offset] = int(write[start : start + 2], 16)
                return []
            lines = []
            for start in range(address, address + count, 16):
                end = min(start + 16, address + count)
                data = " ".join(f"{self.eeprom.get(a, 0):02x}" for a in range(start, end))
                lines.append(f"{start:04x}  {data}")
            return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--link", type=Path, required=True)
    parser.add_argument("--received", type=Path, required=True)
    parser.add_argument("--settings", default="{}", help="JSON: overrides of its settings")
    parser.add_argument("--speed", type=float, default=1.0)
    args = parser.parse_args()
    settings = {**PRUSA_SETTINGS, **json.loads(args.settings)}
    serve(PrusaFlavour(make_printer(args.folder, settings, args.speed)), args.link, args.received)


if __name__ == "__main__":
    main()
