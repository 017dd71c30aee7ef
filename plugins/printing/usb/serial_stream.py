"""The serial host's engine: the link, the numbered lines it streams, and what the printer says.

`SerialStreamer` joins the port on the event loop (serial_link), the numbered lines, credits
and resends (serial_protocol), the job (print_job), the temperature reports (temperatures) and
the link watchdog (link_watchdog). It sends resends first, then the host's own commands, then
the file, while credits last; file lines only while the job is not held. serial_host.SerialHost
adds the actions people take (print, pause, resume, abort) on top.

A job is held (`hold`) when file lines must not flow: the user paused (USER), the printer paused
itself (PRINTER, `// action:paused`), the link dropped and came back (LINK: heaters and X/Y may
be lost, Z is kept), or the printer restarted (RESTART: it printed `start`; Z is lost too).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections import deque

from workbench_plugins.printing.usb.link_watchdog import LinkWatchdog
from workbench_plugins.printing.usb.print_job import (
    Hold,
    HostReporter,
    HostState,
    Listener,
    PrintJob,
)
from workbench_plugins.printing.usb.serial_link import SerialLink
from workbench_plugins.printing.usb.serial_port import PortOpenError, SerialHostError
from workbench_plugins.printing.usb.serial_protocol import (
    RENUMBER,
    LineLedger,
    Outgoing,
    is_resend,
    numbered,
    resend_number,
)
from workbench_plugins.printing.usb.temperatures import autoreport_command, parse_temperatures

log = logging.getLogger(__name__)
_POSITION = re.compile(r"X:\s*(-?[\d.]+)\s+Y:\s*(-?[\d.]+)\s+Z:\s*(-?[\d.]+)")
HEATERS_OFF = b"M104 S0\nM140 S0\n"  # unnumbered: accepted even when numbering is confused


class SerialStreamer(HostReporter):
    def __init__(
        self,
        port: str,
        baudrate: int = 115200,
        *,
        window: int = 1,
        boot_timeout_s: float = 2.0,
        autoreport_s: int = 2,
        listener: Listener | None = None,
        watchdog: LinkWatchdog | None = None,
    ) -> None:
        if not 1 <= window <= 8:
            raise ValueError("window must be between 1 and 8 lines")
        super().__init__(port, listener)
        self.baudrate = baudrate
        self.window = window
        self.boot_timeout_s = boot_timeout_s
        self.autoreport_s = autoreport_s
        self.watchdog = watchdog or LinkWatchdog()
        self.position: tuple[float, float, float] | None = None  # the last X Y Z reported
        self.firmware = ""  # the M115 FIRMWARE_NAME line
        self.lines_sent = 0
        self.resends = 0
        self.lost_oks = 0  # answers taken as lost (timeouts, `wait`) and recovered
        self.hold: Hold | None = None
        self.hold_reason = ""
        self._link: SerialLink | None = None  # kept after it closed: it says what was pending
        self._reset_link()
        self._booted: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None
        self._drained = asyncio.Event()
        self._watch_task: asyncio.Task[None] | None = None

    def _reset_link(self) -> None:
        """Number from scratch and forget queued commands: a new link, or a printer reset."""
        if hasattr(self, "_ledger"):
            self._fail_waiters()
        self._ledger = LineLedger(self.window)
        self._manual: deque[Outgoing] = deque()

    def _fail_waiters(self) -> None:
        for outgoing in (*self._manual, *self._ledger.pending()):
            outgoing.resolve(False)

    def _link_setup(self) -> list[Outgoing]:
        commands = [RENUMBER, "M115", autoreport_command(self.autoreport_s)]
        return [Outgoing(command) for command in commands]

    @property
    def is_prusa(self) -> bool:
        """The firmware said it is Prusa-Firmware (M115): it parks itself on M601."""
        return "prusa-firmware" in self.firmware.lower()

    @property
    def active_job(self) -> PrintJob | None:
        """The job, if it has lines left to confirm."""
        return self.job if self.job is not None and not self.job.done else None

    @property
    def _rx(self) -> bytes:
        """The received bytes after the last line end (the tests check that garbage is dropped)."""
        return self._link.pending if self._link is not None else b""

    # -- connection ---------------------------------------------------------------------------
    async def connect(self) -> None:
        """Open the port, wait for the boot `start` (an MK3 resets on open), number from 0."""
        if self.connected:
            return
        self._booted, self._idle, self._drained = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self._set_state(HostState.CONNECTING, f"opening {self.port}")
        link = SerialLink(
            self.port, self.baudrate, on_line=self._handle, on_read=self._pump, on_lost=self._lost
        )
        try:
            await link.open()
        except PortOpenError as failed:
            self._set_state(HostState.DISCONNECTED, f"cannot open {self.port}: {failed.reason}")
            raise SerialHostError(
                f"Cannot open the printer port {self.port}: {failed.explanation}. Check the "
                "cable and the port name."
            ) from None
        self._link = link
        self._reset_link()
        self.watchdog.reset()
        self.position = None
        # an MK3 resets when the port opens and says `start`; one that does not, never will
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._booted.wait(), self.boot_timeout_s)
        self._manual.extend(self._link_setup())
        self._watch_task = asyncio.ensure_future(self._watch())
        self._set_state(*self._connected_state())
        self._pump()

    def _connected_state(self) -> tuple[HostState, str]:
        job = self.active_job
        if job is None:
            return HostState.IDLE, "connected"
        if self.hold is None:
            self.hold, self.hold_reason = Hold.LINK, "the link was closed during the print"
        if self.hold is Hold.RESTART:
            return HostState.PAUSED, self._restart_message()
        return HostState.PAUSED, (
            f"reconnected; the print is held at line {job.confirmed} of {job.total}: resume "
            "(re-heats, homes X/Y, restores the position) or abort"
        )

    def _restart_message(self) -> str:
        return (
            f"{self.hold_reason}: it no longer knows where the nozzle is, so the print cannot "
            "simply continue. Resume from a layer (see the resume plan) or abort."
        )

    async def disconnect(self) -> None:
        """Close the link and end its watchdog task (left pending, a loop closed later would
        log it as destroyed)."""
        watch = self._watch_task
        self._drop_link("disconnected by the user")
        if watch is not None and watch is not asyncio.current_task():
            await asyncio.wait([watch])

    @property
    def connected(self) -> bool:
        return self._link is not None and self._link.is_open

    def _lost(self, reason: str) -> None:
        self._drop_link(reason)

    def _drop_link(
        self, reason: str, state: HostState = HostState.DISCONNECTED, kind: str = "disconnect"
    ) -> None:
        if self._link is not None:
            self._link.close()
        if self._watch_task is not None:
            self._watch_task.cancel()
            self._watch_task = None
        self._fail_waiters()
        job = self.active_job
        if job is not None:
            job.rewind_to_confirmed()
            if self.hold is not Hold.RESTART:
                self.hold, self.hold_reason = Hold.LINK, reason
        self._set_state(state, reason, kind=kind)
        self._drained.set()
        if self._idle is not None:
            self._idle.set()

    # -- commands -----------------------------------------------------------------------------
    def send_command(self, command: str) -> None:
        """A terminal command: goes ahead of the file's next line."""
        command = command.split(";", 1)[0].strip()
        if not command:
            return
        if command.upper() == "M112":
            self.emergency_stop()
            return
        self._require_link()
        self._manual.append(Outgoing(command))
        self._pump()

    async def send_and_wait(self, commands: list[str]) -> bool:
        """Send `commands` ahead of the file; True once the printer answered `ok` to each.

        False when the link dropped or the printer restarted before that.
        """
        self._require_link()
        loop = asyncio.get_running_loop()
        waiting = []
        for command in commands:
            answered: asyncio.Future[bool] = loop.create_future()
            self._manual.append(Outgoing(command, None, answered))
            waiting.append(answered)
        self._pump()
        return all(await asyncio.gather(*waiting))

    async def until_drained(self) -> None:
        """Until no line is in flight or queued (or the link dropped)."""
        while self.connected and (self._manual or self._ledger.pending()):
            self._drained.clear()
            await self._drained.wait()

    def emergency_stop(self) -> None:
        """M112 straight to the wire, past the queue and the credits."""
        if self.connected:
            self._write(b"M112\n")
        self._set_state(HostState.HALTED, "emergency stop sent (M112); reset the printer")

    async def wait_idle(self, timeout: float) -> None:
        """Until the job finished or the link dropped (tests and headless printing)."""
        if self._idle is None:
            raise SerialHostError(f"The printer on {self.port} was never connected.")
        await asyncio.wait_for(self._idle.wait(), timeout)

    def _require_link(self) -> None:
        if not self.connected:
            raise SerialHostError(
                f"The printer on {self.port} is not connected. Connect (and, after an unplug, "
                "resume or abort the print)."
            )

    # -- writing ------------------------------------------------------------------------------
    def _pump(self) -> None:
        """Send while there are credits: resends first, then the host's commands, then the file."""
        while self._ledger.credits > 0 and self.connected and self.state is not HostState.HALTED:
            line = self._next_line()
            if line is None:
                return
            number, command = line
            self._ledger.sent(number)
            self.lines_sent += 1
            if not self._write(numbered(number, command).encode("ascii", errors="replace")):
                return

    def _next_line(self) -> tuple[int, str] | None:
        """The next (line number, command) to send, or None when there is nothing to send."""
        resend = self._ledger.resend_next()
        if resend is not None:
            self.resends += 1
            return resend
        if self._manual:
            outgoing = self._manual.popleft()
            return self._ledger.assign(outgoing), outgoing.command
        job = self.job
        if self.state is HostState.PRINTING and self.hold is None and job and job.has_more:
            index, command = job.take_next()
            return self._ledger.assign(Outgoing(command, index)), command
        return None

    def _write(self, data: bytes) -> bool:
        if self._link is None:
            return False
        try:
            self._link.write(data)
        except OSError as error:
            self._drop_link(f"the printer went away while writing ({error})")
            return False
        return True

    # -- reading ------------------------------------------------------------------------------
    def _handle(self, line: str) -> None:
        self._notify("rx", line)
        self.watchdog.heard(line)
        if line.startswith("ok"):
            self._on_ok(line)
        elif is_resend(line):
            self._on_resend(resend_number(line))
        elif line.startswith("Error:"):
            self._ledger.refuse_oldest()
            if "halted" in line.lower() or "kill" in line.lower():
                self._set_state(HostState.HALTED, line)
        elif line == "start":
            self._on_start()
        elif line == "wait":
            self._on_wait()
        elif line.startswith("//") and "action:" in line:
            self._on_action(line.split("action:", 1)[1].strip())
        elif "FIRMWARE_NAME:" in line:
            self.firmware = line
        elif "X:" in line and "Z:" in line:  # M114 before its ok (Prusa firmware)
            self._read_position(line)
        elif "T:" in line:
            self._read_temperatures(line)
        # echo:busy only keeps the link alive (the watchdog heard it)

    def _on_ok(self, line: str) -> None:
        self.watchdog.answered()
        for outgoing in self._ledger.acknowledge():
            outgoing.resolve(True)
            self._confirm(outgoing)
        if "T:" in line:
            self._read_temperatures(line)
        if "X:" in line:
            self._read_position(line)
        if not self._ledger.pending() and not self._manual:
            self._drained.set()

    def _confirm(self, outgoing: Outgoing) -> None:
        job = self.job
        if outgoing.index is None or job is None or not job.confirm(outgoing.index):
            return
        if job.done and self.state is HostState.PRINTING:
            self._set_state(HostState.FINISHED, f"finished {job.path.name}")
            if self._idle is not None:
                self._idle.set()
        elif job.confirmed % 50 == 0:
            self._notify("status")

    def _on_resend(self, number: int) -> None:
        if not self._ledger.request_resend(number):
            self.message = f"the printer asked for line {number}, which is not in the history"
            self._notify("status")

    def _on_start(self) -> None:
        """The printer (re)booted: when the port opened (MK3) or mid-connection (a reset)."""
        if self._booted is not None:
            self._booted.set()
        if self.active_job is not None:
            self.active_job.rewind_to_confirmed()
            self.hold = Hold.RESTART
            self.hold_reason = "the printer restarted (it printed `start`)"
        if self.state is HostState.CONNECTING:
            return  # connect() sets up the link once the boot is over
        self._reset_link()
        self._manual.extend(self._link_setup())
        if self.hold is Hold.RESTART:
            self._set_state(HostState.PAUSED, self._restart_message())
        elif self.state is HostState.HALTED:
            self._set_state(HostState.IDLE, "the printer restarted after the emergency stop")
        self._pump()

    def _on_wait(self) -> None:
        """`wait`: the printer's queue ran dry; with a line in flight, its `ok` was lost."""
        oldest = self._ledger.oldest()
        if oldest is not None and self.watchdog.idle_says_lost(oldest[1]):
            self._take_ok_as_lost("the printer said `wait` with a line in flight")

    def _on_action(self, action: str) -> None:
        """Host action commands from the printer (its screen, M601, filament runout)."""
        if action in ("pause", "paused") and self.hold is None and self.active_job:
            self.hold, self.hold_reason = Hold.PRINTER, "paused on the printer"
            self._set_state(HostState.PAUSED, "paused on the printer: resume there or here")
        elif action in ("resume", "resumed") and self.hold is Hold.PRINTER:
            self.hold = None
            self._set_state(HostState.PRINTING, "resumed on the printer")
            self._pump()
        elif action.startswith("cancel") and self.active_job:
            self.hold, self.hold_reason = Hold.PRINTER, "the printer asked to cancel"
            self._set_state(HostState.PAUSED, "the printer asked to cancel the print: abort it")

    def _read_temperatures(self, line: str) -> None:
        self.temperatures.update(parse_temperatures(line, self.temperatures))
        self._notify("temperature")

    def _read_position(self, line: str) -> None:
        match = _POSITION.search(line)
        if match:
            x, y, z = (float(value) for value in match.groups())
            self.position = (x, y, z)

    # -- the watchdog -------------------------------------------------------------------------
    async def _watch(self) -> None:
        tick = min(1.0, self.watchdog.timeout_s / 4)
        while self.connected:
            await asyncio.sleep(tick)
            if self.state not in (HostState.HALTED, HostState.ERROR):
                self._check_link()

    def _check_link(self) -> None:
        oldest = self._ledger.oldest()
        if oldest is None or not self.watchdog.due(oldest[0].command, oldest[1]):
            return
        if self.watchdog.timed_out():
            self._give_up()
        else:
            self._take_ok_as_lost(f"no answer within {self.watchdog.timeout_s:g} s")

    def _take_ok_as_lost(self, why: str) -> None:
        """Release the oldest line's credit and poke with M105 (see serial_protocol)."""
        released = self._ledger.release_oldest()
        self.lost_oks += 1
        what = f"line {released.command!r}" if released else "a refused line"
        log.info("printer %s: %s; taking the ok of %s as lost", self.port, why, what)
        self._manual.appendleft(Outgoing("M105"))
        self._pump()

    def _give_up(self) -> None:
        """The printer stopped answering: heaters off (unconfirmed), hold the job, say what next."""
        tries = self.watchdog.max_timeouts + 1
        self._write(HEATERS_OFF)
        self._drop_link(
            f"the printer stopped answering: {tries} timeouts of "
            f"{self.watchdog.timeout_s:g} s in a row, M105 pokes included. Heaters off "
            "(M104 S0, M140 S0) was sent but not confirmed. Check the printer (screen, power, "
            "cable), then connect again: resume re-heats and homes X/Y first; or abort.",
            state=HostState.ERROR,
            kind="status",
        )
