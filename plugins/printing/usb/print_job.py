"""What the serial host streams and reports: its states, the print job, and status snapshots.

A job's position is two counters: the next file line to send, and how many lines the printer
confirmed. Lines between them are in flight; after an unplug or a printer reset they may or may
not have run, so the job goes back to the first unconfirmed one (and remembers how far it had
sent: `sent_until`). The job also follows the file's state over the confirmed lines
(gcode_state.GcodeState) and knows where each layer starts, which is what a resume needs.
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from workbench_plugins.printing.usb.gcode_state import GcodeState, LayerStart

log = logging.getLogger(__name__)
_M73 = re.compile(r"^M73\s+P(\d+)(?:\s+R(\d+))?")
STOP_COMMANDS = ("M104 S0", "M140 S0", "M107", "M84")  # heaters and fan off, motors free


class HostState(StrEnum):
    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    IDLE = "idle"
    PRINTING = "printing"
    PAUSED = "paused"  # by the user, by the printer, or held after a reconnect or restart
    FINISHED = "finished"  # the last line was confirmed; a new print may start
    ERROR = "error"  # the printer stopped answering; the message says what to do
    HALTED = "halted"  # after M112: the printer needs a reset


class Hold(StrEnum):
    """Why file lines do not flow although a job is there."""

    USER = "user"  # paused by the user (parked)
    PRINTER = "printer"  # the printer paused itself (its screen, M601, filament runout)
    LINK = "link"  # the link dropped; the printer kept running and knows Z
    RESTART = "restart"  # the printer restarted: it no longer knows where Z is


@dataclass
class PrintJob:
    path: Path
    commands: list[str]
    layers: list[LayerStart] = field(default_factory=list)
    next_index: int = 0  # next file line to send
    confirmed: int = 0  # lines [0, confirmed) were acknowledged by the printer
    sent_until: int = 0  # lines [confirmed, sent_until) went out unconfirmed before a rewind
    state: GcodeState = field(default_factory=GcodeState)  # after the confirmed lines
    percent: int | None = None  # from the last M73 the printer accepted
    minutes_left: int | None = None

    @property
    def total(self) -> int:
        return len(self.commands)

    @property
    def done(self) -> bool:
        return self.confirmed >= self.total

    @property
    def has_more(self) -> bool:
        return self.next_index < self.total

    def take_next(self) -> tuple[int, str]:
        """The next file line to send, as (file index, command); the job moves past it."""
        index = self.next_index
        self.next_index += 1
        return index, self.commands[index]

    def confirm(self, index: int) -> bool:
        """The printer acknowledged file line `index` (so every line before it too).

        False when that was already confirmed.
        """
        if index < self.confirmed:
            return False
        for command in self.commands[self.confirmed : index + 1]:
            self.state.apply(command)
            match = _M73.match(command)
            if match:
                self.percent = int(match.group(1))
                self.minutes_left = int(match.group(2)) if match.group(2) else None
        self.confirmed = index + 1
        return True

    def rewind_to_confirmed(self) -> None:
        """Lines in flight may or may not have run: send again from the first unconfirmed one."""
        self.sent_until = max(self.sent_until, self.next_index)
        self.next_index = self.confirmed

    @property
    def unsure(self) -> list[str]:
        """Lines sent before the last rewind that the printer never confirmed: may have run."""
        return self.commands[self.confirmed : self.sent_until]

    def layer_at(self, index: int) -> LayerStart | None:
        """The layer file line `index` belongs to (None before the first layer)."""
        position = bisect.bisect_right(self.layers, index, key=lambda layer: layer.index)
        return self.layers[position - 1] if position else None

    @property
    def layer(self) -> int | None:
        """The layer being printed: that of the last confirmed line."""
        current = self.layer_at(max(0, self.confirmed - 1))
        return current.number if current else None


@dataclass
class HostSnapshot:
    port: str
    state: HostState
    temperatures: dict[str, tuple[float, float]] = field(default_factory=dict)
    file: str = ""
    line: int = 0
    total: int = 0
    progress: float | None = None
    time_left_s: float | None = None
    message: str = ""
    layer: int | None = None
    resume: dict[str, Any] | None = None  # a refused resume's offer (resume_plan.ResumePlan)

    @classmethod
    def of_job(
        cls,
        port: str,
        state: HostState,
        job: PrintJob | None,
        temperatures: dict[str, tuple[float, float]],
        message: str,
        resume: dict[str, Any] | None = None,
    ) -> HostSnapshot:
        progress: float | None = None
        time_left: float | None = None
        if job is not None and job.total:
            progress = job.confirmed / job.total  # file position; M73 P only says the same
            if job.minutes_left is not None:
                time_left = job.minutes_left * 60.0
        return cls(
            port=port,
            state=state,
            temperatures=dict(temperatures),
            file=job.path.name if job else "",
            line=job.confirmed if job else 0,
            total=job.total if job else 0,
            progress=progress,
            time_left_s=time_left,
            message=message,
            layer=job.layer if job else None,
            resume=resume,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "port": self.port,
            "state": self.state.value,
            "temperatures": {k: list(v) for k, v in self.temperatures.items()},
            "file": self.file,
            "line": self.line,
            "total": self.total,
            "progress": self.progress,
            "time_left_s": self.time_left_s,
            "message": self.message,
            "layer": self.layer,
            "resume": self.resume,
        }


Listener = Callable[[str, HostSnapshot], None]  # (kind, snapshot): "status", "rx", "disconnect"...


class HostReporter:
    """What a printer host reports: its state and message, as snapshots to a listener."""

    def __init__(self, port: str, listener: Listener | None) -> None:
        self.port = port
        self.listener = listener
        self.state = HostState.DISCONNECTED
        self.message = ""
        self.temperatures: dict[str, tuple[float, float]] = {}
        self.job: PrintJob | None = None

    def resume_offer(self) -> dict[str, Any] | None:
        """What a refused resume offers instead (the serial host fills it in)."""
        return None

    def snapshot(self) -> HostSnapshot:
        offer = self.resume_offer()
        job, temperatures = self.job, self.temperatures
        return HostSnapshot.of_job(self.port, self.state, job, temperatures, self.message, offer)

    def _set_state(self, state: HostState, message: str, kind: str = "status") -> None:
        self.state, self.message = state, message
        log.info("printer %s: %s (%s)", self.port, state, message)
        self._notify(kind)

    def _notify(self, kind: str, text: str = "") -> None:
        if self.listener is None:
            return
        try:
            snapshot = self.snapshot()
            if text:
                snapshot.message = text
            self.listener(kind, snapshot)
        except Exception:  # a broken listener must not break the link
            log.exception("printer listener failed")
