"""When the printer's silence means a lost `ok`, and when it means the printer is gone.

A Marlin printer answers every line with `ok`. While lines are in flight the watchdog expects one
within `timeout_s`; `busy` lines (the printer is working on a long move) count as an answer.
Commands known to run long (heating and waiting M109/M190, homing, bed levelling, dwell, M400,
filament change) get `long_timeout_s`, and the printer only has to keep talking meanwhile: a
heat-up sends temperature reports, so complete silence for `timeout_s` still counts as lost.

When time is up the host treats the `ok` as lost, the way Marlin hosts do (see
serial_protocol.py): it releases the credit and pokes the printer with M105; a printer that never
got the line asks for it again. A real `ok` resets the count; `max_timeouts` timeouts in a row
are taken as lost `ok`s, and the next one means the printer is gone: the host stops safely (by
default at the sixth, about a minute of silence at 10 s, as the README says).

`wait` (sent by some firmware, and by OctoPrint's virtual printer, when its queue ran dry) with
a line in flight for at least `wait_grace_s` says the same at once: the printer is idle, so the
`ok` was lost.

Pure bookkeeping on `time.monotonic()` values; the host asks `due()` about once a second.
"""

from __future__ import annotations

import time

from workbench_plugins.printing.usb.gcode_state import code_of

LONG_COMMANDS = frozenset(
    {"M109", "M190", "M191", "G28", "G29", "G80", "G4", "M400", "M600", "M303", "G76", "M0", "M1"}
)


def is_busy(line: str) -> bool:
    return line.startswith("echo:busy") or line.startswith("busy:")


class LinkWatchdog:
    def __init__(
        self,
        timeout_s: float = 10.0,
        long_timeout_s: float = 900.0,
        max_timeouts: int = 5,
        wait_grace_s: float = 0.5,
    ) -> None:
        if timeout_s <= 0 or long_timeout_s <= 0 or max_timeouts < 1:
            raise ValueError("the watchdog needs positive timeouts and at least one retry")
        self.timeout_s = timeout_s
        self.long_timeout_s = long_timeout_s
        self.max_timeouts = max_timeouts
        self.wait_grace_s = wait_grace_s
        self.reset()

    def reset(self) -> None:
        """A fresh link: nothing heard yet, no timeouts counted."""
        now = time.monotonic()
        self.last_ok = self.last_busy = self.last_line = now
        self.timeouts = 0  # in a row, without an ok between them
        self.lost_oks = 0  # over the link's life: how often an ok was taken as lost

    def heard(self, line: str) -> None:
        now = time.monotonic()
        self.last_line = now
        if is_busy(line):
            self.last_busy = now

    def answered(self) -> None:
        """A real `ok`: the printer is processing lines."""
        self.last_ok = time.monotonic()
        self.timeouts = 0

    def due(self, command: str, sent_at: float, now: float | None = None) -> bool:
        """The oldest line in flight (`command`, sent at `sent_at`) waited too long for its ok."""
        now = time.monotonic() if now is None else now
        since_ok = now - max(self.last_ok, sent_at)
        if code_of(command) in LONG_COMMANDS:
            silent = now - max(self.last_line, sent_at)
            return since_ok > self.long_timeout_s or silent > self.timeout_s
        return now - max(self.last_ok, self.last_busy, sent_at) > self.timeout_s

    def idle_says_lost(self, sent_at: float, now: float | None = None) -> bool:
        """A `wait` came: True if the line in flight has waited long enough for it to mean lost."""
        now = time.monotonic() if now is None else now
        return now - sent_at >= self.wait_grace_s

    def timed_out(self) -> bool:
        """Count one timeout; True when that makes too many in a row (the printer is gone)."""
        self.timeouts += 1
        self.lost_oks += 1
        return self.timeouts > self.max_timeouts
