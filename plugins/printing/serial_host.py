"""The USB serial host: streams G-code to a Marlin-style printer on asyncio, never blocking.

The host joins the pieces: the port on the event loop (serial_link), the numbered lines, credits
and resends (serial_protocol), the job and its states (print_job) and the temperature reports
(temperatures). It sends resends first, then terminal commands, then the file, while credits
last. `echo:busy` keeps the link alive; `start` means the printer booted (after the port opens,
or a reset mid-print).

If the port goes away the host stops writing, keeps the file position (the first line not
confirmed), and reports; after `connect` again the job can be resumed or aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from pathlib import Path

from workbench_plugins.printing.gcode_meta import gcode_commands
from workbench_plugins.printing.print_job import (
    STOP_COMMANDS,
    HostSnapshot,
    HostState,
    Listener,
    PrintJob,
)
from workbench_plugins.printing.serial_link import SerialLink
from workbench_plugins.printing.serial_port import PortOpenError, SerialHostError
from workbench_plugins.printing.serial_protocol import (
    RENUMBER,
    LineLedger,
    is_resend,
    numbered,
    resend_number,
)
from workbench_plugins.printing.temperatures import autoreport_command, parse_temperatures

log = logging.getLogger(__name__)


class SerialHost:
    def __init__(
        self,
        port: str,
        baudrate: int = 115200,
        *,
        window: int = 1,
        boot_timeout_s: float = 2.0,
        autoreport_s: int = 2,
        listener: Listener | None = None,
    ) -> None:
        if not 1 <= window <= 8:
            raise ValueError("window must be between 1 and 8 lines")
        self.port = port
        self.baudrate = baudrate
        self.window = window
        self.boot_timeout_s = boot_timeout_s
        self.autoreport_s = autoreport_s
        self.listener = listener
        self.state = HostState.DISCONNECTED
        self.temperatures: dict[str, tuple[float, float]] = {}
        self.job: PrintJob | None = None
        self.message = ""
        self.lines_sent = 0
        self.resends = 0
        self._link: SerialLink | None = None  # kept after it closed: it says what was pending
        self._reset_link()
        self._booted: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None

    def _reset_link(self) -> None:
        """Number from scratch and forget queued commands: a new link, or a printer reset."""
        self._ledger = LineLedger(self.window)
        self._manual: deque[str] = deque()

    def _link_setup(self) -> list[str]:
        return [RENUMBER, autoreport_command(self.autoreport_s)]

    @property
    def _rx(self) -> bytes:
        """The received bytes after the last line end (the tests check that garbage is dropped)."""
        return self._link.pending if self._link is not None else b""

    # -- connection ---------------------------------------------------------------------------
    async def connect(self) -> None:
        """Open the port, wait for the boot `start` (an MK3 resets on open), number from 0."""
        self._booted, self._idle = asyncio.Event(), asyncio.Event()
        self._set_state(HostState.CONNECTING, f"opening {self.port}")
        link = SerialLink(
            self.port,
            self.baudrate,
            on_line=self._handle,
            on_read=self._pump,
            on_lost=self._drop_link,
        )
        try:
            await link.open()
        except PortOpenError as failed:
            self._set_state(HostState.DISCONNECTED, f"cannot open {self.port}: {failed.reason}")
            raise SerialHostError(
                f"Cannot open the printer port {self.port}: {failed.reason}. Check the cable and "
                "that no other program (another host, a slicer) holds the port."
            ) from None
        self._link = link
        self._reset_link()
        # an MK3 resets when the port opens and says `start`; one that does not, never will
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._booted.wait(), self.boot_timeout_s)
        self._set_state(
            HostState.PAUSED if self.job is not None else HostState.IDLE,
            "connected"
            if self.job is None
            else f"reconnected; the job is at line {self.job.confirmed} of {self.job.total}: "
            "resume or abort",
        )
        self._manual.extend(self._link_setup())
        self._pump()

    async def disconnect(self) -> None:
        self._drop_link("disconnected by the user")

    @property
    def connected(self) -> bool:
        return self._link is not None and self._link.is_open

    def _drop_link(self, reason: str) -> None:
        if self._link is not None:
            self._link.close()
        if self.job is not None:
            self.job.rewind_to_confirmed()
        self._set_state(HostState.DISCONNECTED, reason, kind="disconnect")
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
        self._manual.append(command)
        self._pump()

    async def start_print(self, path: Path) -> None:
        self._require_link()
        if self.state in (HostState.PRINTING, HostState.PAUSED):
            raise SerialHostError("A print is already running; stop it first.")
        commands = await asyncio.to_thread(gcode_commands, path)
        self.job = PrintJob(path, commands)
        self._set_state(HostState.PRINTING, f"printing {path.name}")
        self._pump()

    def pause(self) -> None:
        if self.state is HostState.PRINTING:
            self._set_state(HostState.PAUSED, "paused: no more lines are sent")

    def resume(self) -> None:
        self._require_link()
        if self.job is None:
            raise SerialHostError("There is no print to resume.")
        if self.state is HostState.PAUSED:
            self._set_state(HostState.PRINTING, f"resumed at line {self.job.next_index}")
            self._pump()

    def abort(self) -> None:
        """Stop the print: forget the job, then turn heaters and fan off (if connected)."""
        self.job = None
        if self.connected and self.state is not HostState.HALTED:
            self._manual.extend(STOP_COMMANDS)
            self._set_state(HostState.IDLE, "print stopped; heaters off")
            self._pump()
        else:
            self._set_state(self.state, "print aborted")

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
        """Send while there are credits: resends first, then terminal commands, then the file."""
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
            command = self._manual.popleft()
            return self._ledger.assign(command, None), command
        job = self.job
        if self.state is HostState.PRINTING and job is not None and job.has_more:
            index, command = job.take_next()
            return self._ledger.assign(command, index), command
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
        if line.startswith("ok"):
            self._on_ok()
            if "T:" in line:
                self._read_temperatures(line)
        elif is_resend(line):
            self._on_resend(resend_number(line))
        elif line.startswith("Error:"):
            self._ledger.refuse_oldest()
            if "halted" in line.lower() or "kill" in line.lower():
                self._set_state(HostState.HALTED, line)
        elif line == "start":
            self._on_start()
        elif "T:" in line:
            self._read_temperatures(line)
        # echo:busy only keeps the link alive (the link's last_received)

    def _on_ok(self) -> None:
        answered = self._ledger.acknowledge()
        job = self.job
        if answered is None or job is None:
            return
        command, index = answered
        if index is None or not job.confirm(index, command):
            return
        if job.done:
            self._set_state(HostState.IDLE, f"finished {job.path.name}")
            if self._idle is not None:
                self._idle.set()
        elif job.confirmed % 50 == 0:
            self._notify("status")

    def _on_resend(self, number: int) -> None:
        if not self._ledger.request_resend(number):
            self.message = f"the printer asked for line {number}, which is not in the history"
            self._notify("status")

    def _on_start(self) -> None:
        if self._booted is not None:
            self._booted.set()
        if self.state in (HostState.PRINTING, HostState.PAUSED) and self.job is not None:
            # a reset mid-print: the printer forgot everything; hold the job for the user
            self._reset_link()
            self.job.rewind_to_confirmed()
            self._manual.extend(self._link_setup())
            self._set_state(HostState.PAUSED, "the printer restarted: resume or abort")

    def _read_temperatures(self, line: str) -> None:
        self.temperatures.update(parse_temperatures(line))
        self._notify("temperature")

    # -- reporting ----------------------------------------------------------------------------
    def snapshot(self) -> HostSnapshot:
        return HostSnapshot.of_job(self.port, self.state, self.job, self.temperatures, self.message)

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
