"""The printer panel's PrusaLink polling: a status every 2 s while the printer answers, less and
less often while it does not (exponential, capped; reset by an answer or a person's action), and
each problem said once, until something changes.

Polls read the printer directly on the printers' loop (not as recorded tool calls: a status every
2 s is not something a person asked for, and would fill the chat and the store). A problem with
the key (none in the keyring, no keyring at all, a refused key) is told apart, so the panel can
offer the Printers dialog or a key kept for this session only.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal

from workbench.core.secrets import SecretUnavailable, keyring_advice, keyring_status
from workbench.ui.async_loop import start_task
from workbench_plugins.printing.printers import PrinterManager
from workbench_plugins.printing.prusalink.access import MissingSecret
from workbench_plugins.printing.prusalink.client import (
    PrusaLinkAuthError,
    PrusaLinkError,
    RetryPolicy,
)
from workbench_plugins.printing.prusalink.control import prusalink_status

POLL_S = 2.0
MAX_POLL_S = 60.0
POLL_TIMEOUT_S = 3.0  # one status: a printer that is off must not hold the next poll
Trouble = Literal["no key", "no keyring", "wrong key", "unreachable"]
KEY_TROUBLES = ("no key", "no keyring", "wrong key")


@dataclass
class Backoff:
    """Seconds to the next poll: `base_s` while answered, doubling per failure up to `cap_s`."""

    base_s: float = POLL_S
    cap_s: float = MAX_POLL_S
    failures: int = 0

    def failed(self) -> float:
        self.failures += 1
        return min(self.cap_s, self.base_s * 2.0**self.failures)

    def reset(self) -> float:
        self.failures = 0
        return self.base_s


SESSION_OFFER = "Or use a key kept for this session only (in memory, never written)."


async def read_status(manager: PrinterManager, printer: str) -> dict[str, Any]:
    """On the printers' loop: `printer`'s PrusaLink status, one attempt, bounded in time."""
    options = {"timeout_s": POLL_TIMEOUT_S, "retry": RetryPolicy(attempts=1)}
    async with manager.prusalink(printer, **options) as client:
        status = await asyncio.wait_for(prusalink_status(client, printer), 3 * POLL_TIMEOUT_S)
    return {**vars(status), "address": manager.profile(printer).address}


def describe_trouble(printer: str, error: BaseException) -> tuple[Trouble, str]:
    """What went wrong with a poll, for people (reads the keyring state: off the GUI thread)."""
    if isinstance(error, MissingSecret):
        return "no key", f"{error} {SESSION_OFFER}"
    if isinstance(error, SecretUnavailable):
        detail = keyring_status().detail or str(error)
        return "no keyring", (
            f"{printer}'s key cannot be read: no usable keyring ({detail}). "
            f"{keyring_advice()} {SESSION_OFFER}"
        )
    if isinstance(error, PrusaLinkAuthError):
        return "wrong key", f"{error} {SESSION_OFFER}"
    if isinstance(error, TimeoutError):
        why = f"no answer within {3 * POLL_TIMEOUT_S:g} s"
    elif isinstance(error, PrusaLinkError):
        why = str(error)
    else:  # the poll itself failed: say so in words, the log has the rest
        why = f"{type(error).__name__}: {error}"
    return "unreachable", (
        f"{printer} does not answer: {why} Asking again less and less often (at most every "
        f"{MAX_POLL_S:g} s); Connect asks at once."
    )


async def poll_once(
    manager: PrinterManager, printer: str
) -> tuple[dict[str, Any] | None, Trouble | None, str]:
    """On the printers' loop: (status, None, "") or (None, trouble, message)."""
    try:
        return await read_status(manager, printer), None, ""
    except Exception as error:  # every failure is said to the person, none ends the polling
        trouble, message = describe_trouble(printer, error)
        return None, trouble, message


class PrusaLinkWatch(QObject):
    """`answered(status)` at every answer; `trouble(kind, message)` once per kind of trouble
    until an answer or `start` (a person's action); `scheduled_s` lists every interval set."""

    answered = Signal(dict)
    trouble = Signal(str, str)

    def __init__(self, manager: PrinterManager, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.manager = manager
        self.printer = ""
        self.backoff = Backoff()
        self.scheduled_s: list[float] = []
        self.polls = 0  # polls finished (for tests to wait on, and for the curious)
        self._said: str = ""  # the kind of trouble last said
        self._busy = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.poll_now)

    @property
    def interval_s(self) -> float:
        """The interval to the next poll now set (0 when none is)."""
        return self._timer.interval() / 1000 if self._timer.isActive() else 0.0

    def start(self, printer: str) -> None:
        """A person asked (Connect, a key entered, the printers changed): from the start."""
        self.printer = printer
        self.backoff.reset()
        self._said = ""
        self.poll_now()

    def stop(self) -> None:
        self.printer = ""
        self._timer.stop()

    def poll_now(self) -> None:
        self._timer.stop()
        if self.printer and not self._busy:
            self._busy = True
            start_task(self._poll(self.printer), name="printer-status")

    async def _poll(self, printer: str) -> None:
        try:
            status, trouble, message = await self.manager.run(poll_once(self.manager, printer))
        finally:
            self._busy = False
        if not shiboken6.isValid(self) or printer != self.printer:
            return  # stopped, or another printer chosen, meanwhile
        self.polls += 1
        if status is not None:
            self._said = ""
            self._schedule(self.backoff.reset())
            self.answered.emit(status)
            return
        self._schedule(self.backoff.failed())
        if trouble is not None and trouble != self._said:
            self._said = trouble
            self.trouble.emit(trouble, message)

    def _schedule(self, seconds: float) -> None:
        self.scheduled_s.append(seconds)
        self._timer.start(int(seconds * 1000))
