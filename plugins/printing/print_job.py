"""What the serial host streams and reports: its states, the print job, and status snapshots.

A job's position is two counters: the next file line to send, and how many lines the printer
confirmed. Lines between them are in flight; after an unplug or a printer reset they may or may
not have run, so the job goes back to the first unconfirmed one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

_M73 = re.compile(r"^M73\s+P(\d+)(?:\s+R(\d+))?")
STOP_COMMANDS = ("M104 S0", "M140 S0", "M107", "M84")  # heaters and fan off, motors free


class HostState(StrEnum):
    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    IDLE = "idle"
    PRINTING = "printing"
    PAUSED = "paused"
    HALTED = "halted"  # after M112: the printer needs a reset


@dataclass
class PrintJob:
    path: Path
    commands: list[str]
    next_index: int = 0  # next file line to send
    confirmed: int = 0  # lines [0, confirmed) were acknowledged by the printer
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

    def confirm(self, index: int, command: str) -> bool:
        """The printer acknowledged file line `index`; False when that was already confirmed."""
        if index < self.confirmed:
            return False
        self.confirmed = index + 1
        match = _M73.match(command)
        if match:
            self.percent = int(match.group(1))
            self.minutes_left = int(match.group(2)) if match.group(2) else None
        return True

    def rewind_to_confirmed(self) -> None:
        """Lines in flight may or may not have run: send again from the first unconfirmed one."""
        self.next_index = self.confirmed


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

    @classmethod
    def of_job(
        cls,
        port: str,
        state: HostState,
        job: PrintJob | None,
        temperatures: dict[str, tuple[float, float]],
        message: str,
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
        }


Listener = Callable[[str, HostSnapshot], None]  # (kind, snapshot): "status", "rx", "disconnect"...
