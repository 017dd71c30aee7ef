"""The Marlin line protocol: numbered, checksummed lines and which of them the printer answered.

Each line goes out as `N<n> <cmd>*<xor>`; the printer answers every line with one `ok` (an error
first, then `Resend: <n>`, then `ok`, when a line arrived broken or out of order). Flow control is
by credits: at most `window` lines are unanswered. A resend rewinds to the asked line in our
history; with a window > 1 every line already in flight after it will also be refused with the
same `Resend`, so those repeats are swallowed (counted, not guessed).

A missing `ok` (lost on the cable, or a line the printer never got) is handled as Marlin hosts
do: after a timeout the oldest line in flight is `release`d as if answered, and the host sends
the next line (a poke). The printer accepts line N+1 only after line N, so the next real `ok`
proves the released lines arrived: they are `presumed` until then, and confirmed by it. If N was
really lost the printer asks for it again (`Resend: N`) and it is sent from the history.

Nothing here touches a port: `LineLedger` is the bookkeeping the serial host consults.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from dataclasses import dataclass

RENUMBER = "M110 N0"  # the printer's next expected line becomes 1


def numbered(number: int, command: str) -> str:
    """`command` as line `number` of the link, with its XOR checksum and line end."""
    body = f"N{number} {command}"
    value = 0
    for byte in body.encode("ascii", errors="replace"):
        value ^= byte
    return f"{body}*{value}\n"


@dataclass(eq=False)
class Outgoing:
    """A command on its way: its file index (None: not from the file) and who awaits its `ok`."""

    command: str
    index: int | None = None
    answered: asyncio.Future[bool] | None = None

    def resolve(self, value: bool) -> None:
        if self.answered is not None and not self.answered.done():
            self.answered.set_result(value)


def is_resend(line: str) -> bool:
    return line.startswith("Resend:") or line.startswith("rs ")


def resend_number(line: str) -> int:
    """The line number in `Resend: 12` (Marlin) or `rs N12` (older firmware)."""
    return int(re.sub(r"\D", "", line.split(":")[-1]) or 0)


class LineLedger:
    """Numbers outgoing lines, keeps them for resends and counts the credits left."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.next_number = 1
        self.history: dict[int, Outgoing] = {}
        self.resend_at: int | None = None  # the next line to send again, if any
        self.swallow: tuple[int, int] = (0, 0)  # (line, how many repeats to ignore)
        self.in_flight: deque[tuple[int, bool, float]] = deque()  # (n, refused, sent at)
        self.presumed: list[tuple[int, Outgoing]] = []  # released without an ok: the next ok proves
        self.credits = window

    def resend_next(self) -> tuple[int, str] | None:
        """The next (number, command) to send again after a `Resend`, or None."""
        number = self.resend_at
        if number is None:
            return None
        self.resend_at = number + 1 if number + 1 < self.next_number else None
        return number, self.history[number].command

    def assign(self, outgoing: Outgoing) -> int:
        """Give the command the next line number and remember it for resends."""
        if outgoing.command.startswith("M110"):
            # renumbering: the printer's next expected line is 1, and history before is void
            self.history.clear()
            self.history[0] = outgoing
            self.next_number = 1
            return 0
        number = self.next_number
        self.history[number] = outgoing
        self.next_number += 1
        return number

    def sent(self, number: int) -> None:
        """Line `number` went out: it takes a credit until its `ok`."""
        self.credits -= 1
        self.in_flight.append((number, False, time.monotonic()))

    def refuse_oldest(self) -> None:
        """An `Error:` came: the oldest line in flight was refused, its `ok` confirms nothing."""
        if self.in_flight:
            number, _, sent_at = self.in_flight[0]
            self.in_flight[0] = (number, True, sent_at)

    def acknowledge(self) -> list[Outgoing]:
        """An `ok` came: what it confirms, oldest first (presumed lines, then its own line)."""
        self.credits = min(self.window, self.credits + 1)
        if not self.in_flight:
            return []
        number, refused, _ = self.in_flight.popleft()
        answered = [outgoing for _, outgoing in self.presumed]
        self.presumed = []
        if not refused and number in self.history:
            answered.append(self.history[number])
        return answered

    def release_oldest(self) -> Outgoing | None:
        """Its `ok` is taken as lost: free the credit, presume the line arrived (see module)."""
        if not self.in_flight:
            return None
        self.credits = min(self.window, self.credits + 1)
        number, refused, _ = self.in_flight.popleft()
        if refused or number not in self.history:
            return None  # refused lines come again with the printer's Resend
        self.presumed.append((number, self.history[number]))
        return self.history[number]

    def oldest(self) -> tuple[Outgoing, float] | None:
        """The oldest line in flight and when it was sent."""
        if not self.in_flight:
            return None
        number, _, sent_at = self.in_flight[0]
        return self.history.get(number, Outgoing("")), sent_at

    def pending(self) -> list[Outgoing]:
        """Lines in flight or presumed: sent, not yet proven answered."""
        in_flight = [self.history[n] for n, _, _ in self.in_flight if n in self.history]
        return [outgoing for _, outgoing in self.presumed] + in_flight

    def request_resend(self, number: int) -> bool:
        """The printer asked for line `number` again; False if it is no longer in the history."""
        line, repeats = self.swallow
        if number == line and repeats > 0:
            self.swallow = (line, repeats - 1)  # a repeat for a line in flight: already rewound
            return True
        if number not in self.history:
            return False
        self.presumed = [(n, p) for n, p in self.presumed if n < number]  # those never arrived
        sent_upto = (self.resend_at - 1) if self.resend_at is not None else self.next_number - 1
        self.swallow = (number, max(0, sent_upto - number))
        self.resend_at = number
        return True
