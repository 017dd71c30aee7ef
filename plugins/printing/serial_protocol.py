"""The Marlin line protocol: numbered, checksummed lines and which of them the printer answered.

Each line goes out as `N<n> <cmd>*<xor>`; the printer answers every line with one `ok` (an error
first, then `Resend: <n>`, then `ok`, when a line arrived broken or out of order). Flow control is
by credits: at most `window` lines are unanswered. A resend rewinds to the asked line in our
history; with a window > 1 every line already in flight after it will also be refused with the
same `Resend`, so those repeats are swallowed (counted, not guessed).

Nothing here touches a port: `LineLedger` is the bookkeeping the serial host consults.
"""

from __future__ import annotations

import re
from collections import deque

RENUMBER = "M110 N0"  # the printer's next expected line becomes 1


def numbered(number: int, command: str) -> str:
    """`command` as line `number` of the link, with its XOR checksum and line end."""
    body = f"N{number} {command}"
    value = 0
    for byte in body.encode("ascii", errors="replace"):
        value ^= byte
    return f"{body}*{value}\n"


def is_resend(line: str) -> bool:
    return line.startswith("Resend:") or line.startswith("rs ")


def resend_number(line: str) -> int:
    """The line number in `Resend: 12` (Marlin) or `rs N12` (older firmware)."""
    return int(re.sub(r"\D", "", line.split(":")[-1]) or 0)


class LineLedger:
    """Numbers outgoing lines, keeps them for resends and counts the credits left.

    A sent line is remembered as (command, file index); the index is None for a command that is
    not from the print file (a terminal command, the link set-up).
    """

    def __init__(self, window: int) -> None:
        self.window = window
        self.next_number = 1
        self.history: dict[int, tuple[str, int | None]] = {}  # n -> (command, file index)
        self.resend_at: int | None = None  # the next line to send again, if any
        self.swallow: tuple[int, int] = (0, 0)  # (line, how many repeats to ignore)
        self.in_flight: deque[tuple[int, bool]] = deque()  # (n, refused)
        self.credits = window

    def resend_next(self) -> tuple[int, str] | None:
        """The next (number, command) to send again after a `Resend`, or None."""
        number = self.resend_at
        if number is None:
            return None
        command, _ = self.history[number]
        self.resend_at = number + 1 if number + 1 < self.next_number else None
        return number, command

    def assign(self, command: str, index: int | None) -> int:
        """Give `command` the next line number and remember it for resends."""
        if command.startswith("M110"):
            # renumbering: the printer's next expected line is 1, and history before is void
            self.history.clear()
            self.history[0] = (command, index)
            self.next_number = 1
            return 0
        number = self.next_number
        self.history[number] = (command, index)
        self.next_number += 1
        return number

    def sent(self, number: int) -> None:
        """Line `number` went out: it takes a credit until its `ok`."""
        self.credits -= 1
        self.in_flight.append((number, False))

    def refuse_oldest(self) -> None:
        """An `Error:` came: the oldest line in flight was refused, its `ok` confirms nothing."""
        if self.in_flight:
            number, _ = self.in_flight[0]
            self.in_flight[0] = (number, True)

    def acknowledge(self) -> tuple[str, int | None] | None:
        """An `ok` came: the (command, file index) it confirms, or None (refused, or no line)."""
        self.credits = min(self.window, self.credits + 1)
        if not self.in_flight:
            return None
        number, refused = self.in_flight.popleft()
        if refused:
            return None
        return self.history.get(number, ("", None))

    def request_resend(self, number: int) -> bool:
        """The printer asked for line `number` again; False if it is no longer in the history."""
        line, repeats = self.swallow
        if number == line and repeats > 0:
            self.swallow = (line, repeats - 1)  # a repeat for a line in flight: already rewound
            return True
        if number not in self.history:
            return False
        sent_upto = (self.resend_at - 1) if self.resend_at is not None else self.next_number - 1
        self.swallow = (number, max(0, sent_upto - number))
        self.resend_at = number
        return True
