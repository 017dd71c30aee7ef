"""The USB serial host: prints a G-code file on a Marlin-style printer, pauses, resumes, aborts.

The streaming itself (link, numbered lines, resends, the watchdog for lost `ok`s) is
serial_stream.SerialStreamer; this class adds what people do with a print. Every action is
async and returns an `ActionOutcome` that is confirmed only by the printer's `ok` to the
commands that did it; an action still running after `action_timeout_s` (a pause waiting for a
long move, a resume waiting for the bed to heat) returns "requested" and finishes on its own.

- pause: stop taking file lines, wait until the lines in flight are answered, then park: M601
  on Prusa firmware (it parks and retracts itself; M602 resumes), else a host park
  (resume_plan.park_commands) that resume undoes exactly.
- resume after a pause: unpark (or M602), then continue.
- resume after the link dropped and came back (the printer did not restart): first ask the
  printer where it is (M114); if Z is not where the print left it, it restarted or was moved and
  the resume is refused as below. Else re-heat, lift, home X/Y, go back, restore E and modes
  (resume_plan.reconnect_plan), continue at the first unconfirmed line.
- resume after the printer restarted (`start`): refused with `ResumeRefused`, whose `.plan` is
  "resume from layer N" (resume_plan.layer_plan); `resume_from_layer(N)` carries that out.
- abort: forget the job and switch heaters and fan off; confirmed by the printer's oks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from workbench_plugins.printing.gcode_check import NotGcode, check_gcode
from workbench_plugins.printing.outcomes import ActionOutcome
from workbench_plugins.printing.usb.gcode_state import GcodeState, read_print, state_before
from workbench_plugins.printing.usb.link_watchdog import LinkWatchdog
from workbench_plugins.printing.usb.print_job import (
    STOP_COMMANDS,
    Hold,
    HostState,
    Listener,
    PrintJob,
)
from workbench_plugins.printing.usb.resume_plan import (
    Motion,
    ResumePlan,
    layer_plan,
    park_commands,
    reconnect_plan,
    unpark_commands,
)
from workbench_plugins.printing.usb.serial_port import SerialHostError
from workbench_plugins.printing.usb.serial_stream import SerialStreamer

__all__ = [
    "Hold",
    "HostState",
    "Motion",
    "ResumePlan",
    "ResumeRefused",
    "SerialHost",
    "load_print",
]
log = logging.getLogger(__name__)
Z_TOLERANCE_MM = 0.05  # M114 reports two decimals


class ResumeRefused(SerialHostError):
    """A plain resume would be unsafe; `reason` says why, `plan` what resuming from a layer does."""

    def __init__(self, reason: str, plan: ResumePlan | None) -> None:
        offer = f" Instead: {plan.describe()}." if plan else ""
        super().__init__(f"Resume refused: {reason}.{offer}")
        self.reason = reason
        self.plan = plan


async def load_print(path: Path) -> PrintJob:
    """Read and check a G-code file into a job (SerialHostError when it is not G-code): done
    before the port opens, since opening it resets an MK3."""

    def read() -> PrintJob:
        check_gcode(path)
        commands, layers = read_print(path)
        return PrintJob(path, commands, layers)

    try:
        return await asyncio.to_thread(read)
    except NotGcode as error:
        raise SerialHostError(str(error)) from None
    except OSError as error:
        raise SerialHostError(f"Cannot read {path}: {error.strerror or error}.") from None


class SerialHost(SerialStreamer):
    def __init__(
        self,
        port: str,
        baudrate: int = 115200,
        *,
        window: int = 1,
        boot_timeout_s: float = 2.0,
        autoreport_s: int = 2,
        listener: Listener | None = None,
        comm_timeout_s: float = 10.0,
        long_command_timeout_s: float = 900.0,
        max_timeouts: int = 5,
        action_timeout_s: float = 30.0,
        motion: Motion | None = None,
    ) -> None:
        watchdog = LinkWatchdog(comm_timeout_s, long_command_timeout_s, max_timeouts)
        super().__init__(
            port,
            baudrate,
            window=window,
            boot_timeout_s=boot_timeout_s,
            autoreport_s=autoreport_s,
            listener=listener,
            watchdog=watchdog,
        )
        self.action_timeout_s = action_timeout_s
        self.motion = motion or Motion()
        self._paused_at: GcodeState | None = None  # the file's state when the pause parked
        self._host_parked = False  # parked by park_commands (not M601)
        self._action: asyncio.Task[ActionOutcome] | None = None
        self._action_name = ""
        self._offer: tuple[tuple[Any, ...], dict[str, Any] | None] = ((), None)

    # -- printing -----------------------------------------------------------------------------
    async def start_print(self, path: Path, loaded: PrintJob | None = None) -> None:
        """Stream `path` (`loaded`: the job load_print made of it before the port opened)."""
        self._require_link()
        if self.active_job is not None:
            raise SerialHostError("A print is already running or held; resume or abort it first.")
        if self.state is HostState.HALTED:
            raise SerialHostError("The printer is halted (M112): reset it, then connect again.")
        self.job = loaded or await load_print(path)
        self.hold, self._paused_at, self._host_parked = None, None, False
        if self._idle is not None:
            self._idle.clear()  # wait_idle waits for this print
        self._set_state(HostState.PRINTING, f"printing {path.name}")
        self._pump()

    async def pause(self) -> ActionOutcome:
        """Stop after the lines in flight, then park; confirmed by the park's oks."""
        if busy := self._busy():
            return busy
        if self.state is HostState.PAUSED and self.active_job is not None:
            return ActionOutcome(HostState.PAUSED.value, "already paused", True)
        if not self.is_printing or self.active_job is None:
            return ActionOutcome(self.state.value, f"nothing to pause: {self.message}", False)
        self.hold, self.hold_reason = Hold.USER, "paused by the user"
        self._set_state(HostState.PRINTING, "pausing: finishing the lines in flight, then parking")
        return await self._act(
            "pause",
            self._park(),
            "pause requested; the printer is still finishing its current command",
        )

    async def _park(self) -> ActionOutcome:
        await self.until_drained()
        job = self.active_job
        if not self.connected or job is None:
            self.hold = None if job is None else self.hold
            return ActionOutcome(self.state.value, f"did not pause: {self.message}", False)
        self._paused_at = job.state.copy()
        self._host_parked = not self.is_prusa
        parking = park_commands(job.state, self.motion) if self._host_parked else ["M601"]
        if not await self.send_and_wait(parking):
            return ActionOutcome(self.state.value, f"pause failed: {self.message}", False)
        how = "parked by the host" if self._host_parked else "M601: the printer parked itself"
        self._set_state(HostState.PAUSED, f"paused at line {job.confirmed} of {job.total} ({how})")
        return ActionOutcome(HostState.PAUSED.value, self.message, True)

    async def resume(self) -> ActionOutcome:
        """Continue a held print the safe way for why it is held (see the module docstring).

        ResumeRefused when the printer restarted (Z unknown): see resume_plan/resume_from_layer.
        """
        self._require_link()
        job = self.active_job
        if job is None:
            raise SerialHostError("There is no print to resume.")
        if busy := self._busy():
            return busy
        if self.hold is None:
            return ActionOutcome(self.state.value, "the print is not paused", self.is_printing)
        if self.hold is Hold.RESTART:
            raise ResumeRefused(self.hold_reason, self._plan_or_none())
        if self.hold is Hold.LINK:
            await self._check_position(job)
            plan = reconnect_plan(
                job.state,
                job.next_index,
                job.layer,
                self.motion,
                prime_mm=self.motion.retract_mm if self._host_parked else 0.0,
            )
            commands, steps = plan.commands, "; ".join(plan.steps)
        elif self.hold is Hold.USER and self._host_parked and self._paused_at is not None:
            commands, steps = unpark_commands(self._paused_at, self.motion), "unparking"
        else:
            commands = ["M602"] if self.is_prusa else []  # the printer paused itself
            steps = "M602" if commands else "continuing"
        self._set_state(HostState.PRINTING, f"resuming: {steps}")
        return await self._act(
            "resume",
            self._continue(commands, f"resumed at line {job.next_index} of {job.total}"),
            "resume requested; the printer is still working through the resume steps "
            "(heating takes a while)",
        )

    async def resume_from_layer(self, layer: int) -> ActionOutcome:
        """Carry out `resume_plan(layer)`: the way back after the printer restarted."""
        self._require_link()
        if busy := self._busy():
            return busy
        plan = self.resume_plan(layer)
        job = self.active_job
        if job is None or self.hold is None:
            raise SerialHostError("Resume from a layer needs a held print: pause it first.")
        job.confirmed = job.next_index = job.sent_until = plan.line
        job.state = state_before(job.commands, plan.line)
        self._set_state(HostState.PRINTING, f"resuming from layer {layer}: {plan.describe()}")
        return await self._act(
            "resume",
            self._continue(plan.commands, f"resumed from layer {layer} (file line {plan.line})"),
            f"resume from layer {layer} requested; the printer is still heating or homing",
        )

    async def _continue(self, commands: list[str], message: str) -> ActionOutcome:
        if commands and not await self.send_and_wait(commands):
            return ActionOutcome(self.state.value, f"resume did not finish: {self.message}", False)
        self.hold, self._paused_at, self._host_parked = None, None, False
        if self._idle is not None:
            self._idle.clear()
        self._set_state(HostState.PRINTING, message)
        self._pump()
        return ActionOutcome(HostState.PRINTING.value, message, True)

    async def abort(self) -> ActionOutcome:
        """Forget the job and switch heaters and fan off; confirmed by the printer's oks."""
        if self._action is not None and not self._action.done():
            self._action.cancel()
        self._action = None
        prusa_paused = self.is_prusa and self.hold is Hold.USER and not self._host_parked
        self.job, self.hold, self._paused_at, self._host_parked = None, None, None, False
        if self.state is HostState.HALTED:
            return ActionOutcome(self.state.value, "print aborted; the printer is halted", True)
        if not self.connected:
            self._set_state(
                HostState.DISCONNECTED,
                "print aborted; the printer is not connected, so its heaters could not be "
                "switched off from here: check the printer",
            )
            return ActionOutcome(self.state.value, self.message, False)
        for outgoing in self._manual:
            outgoing.resolve(False)
        self._manual.clear()
        self._set_state(HostState.IDLE, "aborting: heaters and fan off")
        stop = (["M603"] if prusa_paused else []) + list(STOP_COMMANDS)
        return await self._act("abort", self._stop(stop), "abort requested; heaters off sent")

    async def _stop(self, commands: list[str]) -> ActionOutcome:
        if not await self.send_and_wait(commands):
            unconfirmed = f"heaters off unconfirmed: {self.message}"
            return ActionOutcome(self.state.value, unconfirmed, False)
        message = "print aborted; heaters and fan off (confirmed by the printer)"
        self._set_state(HostState.IDLE, message)
        return ActionOutcome(HostState.IDLE.value, message, True)

    @property
    def is_printing(self) -> bool:
        return self.state is HostState.PRINTING and self.hold is None

    def _busy(self) -> ActionOutcome | None:
        """An outcome saying another action still runs, or None."""
        if self._action is None or self._action.done():
            return None
        busy = f"{self._action_name} is still in progress: wait for it, or abort"
        return ActionOutcome(self.state.value, busy, False)

    async def _act(
        self, name: str, work: Coroutine[Any, Any, ActionOutcome], requested: str
    ) -> ActionOutcome:
        """Run an action; its outcome, or "requested" if it takes longer than action_timeout_s."""
        task = asyncio.ensure_future(work)
        self._action, self._action_name = task, name
        task.add_done_callback(self._action_done)
        try:
            return await asyncio.wait_for(asyncio.shield(task), self.action_timeout_s)
        except TimeoutError:
            return ActionOutcome(self.state.value, requested, False)

    def _action_done(self, task: asyncio.Task[ActionOutcome]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log.error("printer %s: %s failed", self.port, self._action_name, exc_info=error)
            self._set_state(self.state, f"{self._action_name} failed: {error}")

    # -- resuming safely ----------------------------------------------------------------------
    def _z_candidates(self, job: PrintJob) -> list[float]:
        """Where Z may be now: the last confirmed Z, after each unconfirmed line, the park."""
        candidates = [job.state.z] if job.state.z is not None else []
        state = job.state.copy()
        for command in job.unsure:
            state.apply(command)
            if state.z is not None:
                candidates.append(state.z)
        parked = self._paused_at.z if self._host_parked and self._paused_at else None
        if parked is not None:
            candidates.append(min(parked + self.motion.park_lift_mm, self.motion.max_z_mm))
        return candidates

    async def _check_position(self, job: PrintJob) -> None:
        """Refuse a plain resume when the printer's Z is not where the print left it."""
        self.position = None
        try:
            await asyncio.wait_for(self.send_and_wait(["M114"]), self.watchdog.timeout_s)
        except TimeoutError:
            return  # no answer to M114: nothing to compare, the watchdog deals with silence
        candidates = self._z_candidates(job)
        if self.position is None or not candidates:
            return
        z = self.position[2]
        if all(abs(z - candidate) > Z_TOLERANCE_MM for candidate in candidates):
            self.hold = Hold.RESTART
            self.hold_reason = (
                f"the printer reports Z={z:.2f} but the print left it at Z={candidates[0]:.2f}: "
                "it restarted or was moved"
            )
            self._set_state(HostState.PAUSED, self._restart_message())
            raise ResumeRefused(self.hold_reason, self._plan_or_none())

    def resume_plan(self, layer: int | None = None) -> ResumePlan:
        """What resuming from `layer` (default: the one printing when it stopped) would do."""
        job = self.active_job
        if job is None:
            raise SerialHostError("There is no print to resume.")
        if not job.layers:
            raise SerialHostError(
                f"{job.path.name} has no layers this host can find (no ;LAYER_CHANGE markers, "
                "no extruding moves), so it cannot resume from a layer: abort and print again."
            )
        current = job.layer or 1
        number = current if layer is None else layer
        if not 1 <= number <= len(job.layers):
            raise SerialHostError(
                f"There is no layer {number}: {job.path.name} has layers 1 to {len(job.layers)}."
            )
        if number < current:
            raise SerialHostError(
                f"Layer {number} is below layer {current}, which was printing when the print "
                f"stopped: the nozzle would run into the part. Pick layer {current} or higher."
            )
        heights = self._z_candidates(job)
        if not heights:
            raise SerialHostError(
                "The print stopped before it moved Z over the bed: abort and print again."
            )
        target = job.layers[number - 1]
        at_start = state_before(job.commands, target.index)
        return layer_plan(target, at_start, min(heights), self.motion)

    def _plan_or_none(self) -> ResumePlan | None:
        try:
            return self.resume_plan()
        except SerialHostError:
            return None

    def resume_offer(self) -> dict[str, Any] | None:
        job = self.active_job
        if self.hold is not Hold.RESTART or job is None:
            return None
        key = (self.hold_reason, job.confirmed, job.sent_until, id(job))
        if self._offer[0] != key:
            try:
                offer = self.resume_plan().offer(self.hold_reason)
            except SerialHostError as error:
                offer = {"reason": self.hold_reason, "layer": None, "z": None,
                         "line": job.confirmed, "steps": [str(error)]}  # fmt: skip
            self._offer = (key, offer)
        return self._offer[1]
