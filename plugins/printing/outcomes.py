"""What a printer says back, whatever the transport: its status, and the outcome of an action.

An action's outcome is confirmed only when the printer itself reported the new state (PrusaLink's
status, or the serial printer's `ok` to the commands that did it); otherwise it says "requested".
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class PrinterStatus:
    printer: str
    state: str  # lower case: idle, printing, paused, finished, stopped, error, disconnected...
    temperatures: dict[str, list[float]] = field(default_factory=dict)  # name -> [actual, target]
    progress: float | None = None  # 0..1
    time_left_s: float | None = None
    file: str = ""  # the file being printed (display name)
    message: str = ""


@dataclass
class ActionOutcome:
    state: str  # the state the printer reported after the action
    message: str  # for people: what happened, and what to do next when it did not
    confirmed: bool  # the printer reported the state the action asked for
