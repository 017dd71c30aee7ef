"""A PrusaLink printer as the printer host and the tools see it: its status (state, file,
temperatures, progress), printing a file, and pause / resume / cancel.

PrusaLink answers an action at once (204) and the printer changes state a moment later, so an
outcome is confirmed only when the printer's status shows the new state within `wait_s`; otherwise
it says the action was requested and what the printer still reports. Errors are PrusaLinkErrors
with messages for people (a refused key names its keyring entry, see prusalink.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from workbench_plugins.printing.outcomes import ActionOutcome, PrinterStatus
from workbench_plugins.printing.prusalink.client import PrusaLinkClient, PrusaLinkError

ACTION_WAIT_S = 8.0  # a printer finishes its buffered moves before it reports "paused"
POLL_S = 0.25
NOT_READY = ("printing", "paused", "busy", "attention", "error")  # no new print in these states
ENDED = ("finished", "stopped")  # the last print's end, shown for a while
PRINT_END_S = 11.0  # PrusaLink 0.8.1 shows FINISHED / STOPPED this long (then idle)
SETTLE_S = PRINT_END_S + 4.0
Action = Literal["pause", "resume", "cancel"]
DONE = {"pause": "Paused", "resume": "Resumed", "cancel": "Cancelled"}
# the states that show an action took effect
TARGETS: dict[str, tuple[str, ...]] = {
    "pause": ("paused",),
    "resume": ("printing", "finished"),
    "cancel": ("stopped", "idle", "ready"),
}


def _state(status: dict[str, Any]) -> str:
    return str((status.get("printer") or {}).get("state") or "unknown").lower()


def _job_id(status: dict[str, Any]) -> int | None:
    job = status.get("job") or {}
    return int(job["id"]) if job.get("id") is not None else None


def _file_name(job: dict[str, Any] | None) -> str:
    file = (job or {}).get("file") or {}
    return str(file.get("display_name") or file.get("name") or "")


def _temperatures(printer: dict[str, Any]) -> dict[str, list[float]]:
    found = {}
    for name in ("nozzle", "bed"):
        if f"temp_{name}" in printer:
            actual = float(printer[f"temp_{name}"] or 0.0)
            found[name] = [actual, float(printer.get(f"target_{name}") or 0.0)]
    return found


def _describe(state: str, file: str, progress: float | None) -> str:
    """For people: "printing cube.gcode (42 %)", "finished cube.gcode", "idle"."""
    text = f"{state} {file}" if file else state
    if progress is not None and state in ("printing", "paused"):
        text += f" ({progress * 100:.0f} %)"
    return text


async def prusalink_status(client: PrusaLinkClient, printer: str) -> PrinterStatus:
    """What the printer reports now; the file comes from /api/v1/job while a job exists."""
    status = await client.status()
    state = _state(status)
    job_summary = status.get("job") or {}
    job = await client.job() if job_summary else None
    progress_pct = (job or job_summary).get("progress")
    progress = float(progress_pct) / 100 if progress_pct is not None else None
    time_left = (job or job_summary).get("time_remaining")
    file = _file_name(job)
    return PrinterStatus(
        printer=printer,
        state=state,
        temperatures=_temperatures(status.get("printer") or {}),
        progress=progress,
        time_left_s=float(time_left) if time_left is not None else None,
        file=file,
        message=_describe(state, file, progress),
    )


async def _wait_for(
    client: PrusaLinkClient, reached: Callable[[dict[str, Any]], bool], wait_s: float
) -> tuple[bool, dict[str, Any]]:
    """Poll the status until `reached` (True, status) or `wait_s` passed (False, last status)."""
    deadline = time.monotonic() + wait_s
    while True:
        status = await client.status()
        if reached(status):
            return True, status
        if time.monotonic() >= deadline:
            return False, status
        await asyncio.sleep(POLL_S)


async def prusalink_print(
    client: PrusaLinkClient,
    gcode: Path,
    *,
    storage: str = "",
    progress: Callable[[int, int], None] | None = None,
    wait_s: float = ACTION_WAIT_S,
    settle_s: float = SETTLE_S,
) -> ActionOutcome:
    """Upload `gcode` to `storage` ("" = the profile's, else the one the printer reports) and
    print it; confirmed when the printer reports printing this new job. Right after a print
    ended, waits up to `settle_s` for the printer to take a new one."""
    before = await client.status()
    if _state(before) in ENDED:  # PrusaLink takes no new print until it shows idle again
        _, before = await _wait_for(client, lambda s: _state(s) not in ENDED, settle_s)
    if _state(before) in ENDED:
        raise PrusaLinkError(
            f"PrusaLink at {client.url} still reports its last print as {_state(before)}, and "
            f"takes a new one only once it is idle (PrusaLink 0.8.1: about {PRINT_END_S:.0f} s "
            f"after a print ends; a printer may want it confirmed on its screen); {gcode.name} "
            "was not uploaded. Try again in a moment."
        )
    if _state(before) in NOT_READY:
        job = await client.job() if before.get("job") else None
        doing = _describe(_state(before), _file_name(job), None)
        raise PrusaLinkError(
            f"PrusaLink at {client.url} is {doing}; {gcode.name} was not uploaded. Wait for "
            "that print to end, or cancel it first."
        )
    chosen = await client.upload_storage(storage)
    remote = await client.upload(gcode, storage=chosen, print_after=True, progress=progress)
    previous = _job_id(before)

    def started(status: dict[str, Any]) -> bool:
        new_job = _job_id(status) is not None and _job_id(status) != previous
        return _state(status) == "printing" or (new_job and _state(status) == "finished")

    confirmed, status = await _wait_for(client, started, wait_s)
    state = _state(status)
    where = f"storage '{chosen}' ({remote.removeprefix('/api/v1/files')})"
    if confirmed:
        message = f"Printing {gcode.name} on {client.url}: uploaded to its {where}; it is {state}."
    else:
        message = (
            f"Uploaded {gcode.name} to {client.url}, {where}, and asked it to print; print "
            f"requested, the printer still reports {state}."
        )
    return ActionOutcome(state=state, message=message, confirmed=confirmed)


async def prusalink_action(
    client: PrusaLinkClient, action: Action, *, wait_s: float = ACTION_WAIT_S
) -> ActionOutcome:
    """Pause, resume or cancel the current job, and report the state the printer then shows."""
    if action not in TARGETS:
        raise ValueError(f"unknown printer action {action!r}: use pause, resume or cancel")
    before = await client.status()
    state, targets = _state(before), TARGETS[action]
    if _job_id(before) is None:
        raise PrusaLinkError(
            f"Nothing to {action}: PrusaLink at {client.url} has no print job (it is {state})."
        )
    if state in targets:
        return ActionOutcome(state, f"Nothing to {action}: the printer is already {state}.", True)
    try:
        await {"pause": client.pause, "resume": client.resume, "cancel": client.stop}[action]()
    except PrusaLinkError as refused:
        if refused.status != 409:
            raise
        # "not printing" / "not paused": maybe it got there anyway (a retried request did it)
        state = _state(await client.status())
        if state not in targets:
            raise PrusaLinkError(
                f"PrusaLink at {client.url} refused to {action}: the printer is {state} "
                f"({refused})",
                status=409,
            ) from None
    confirmed, status = await _wait_for(client, lambda s: _state(s) in targets, wait_s)
    now = _state(status)
    if confirmed:
        return ActionOutcome(now, f"{DONE[action]} the print on {client.url}; it is {now}.", True)
    return ActionOutcome(now, f"{action} requested; the printer still reports {now}.", False)
