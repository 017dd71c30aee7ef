"""The USB serial host: streams G-code to a Marlin-style printer on asyncio, never blocking.

Protocol shape: each line goes out as `N<n> <cmd>*<xor>`; the printer answers every line with one
`ok` (an error first, then `Resend: <n>`, then `ok`, when a line arrived broken or out of order).
Flow control is by credits: at most `window` lines are unanswered. A resend rewinds to the asked
line in our history; with a window > 1 every line already in flight after it will also be refused
with the same `Resend`, so those repeats are swallowed (counted, not guessed). `echo:busy` keeps
the link alive; `start` means the printer booted (after the port opens, or a reset mid-print).

Reading uses `loop.add_reader` on the port's file descriptor; writes are short and non-blocking.
A line longer than MAX_LINE_BYTES is not a Marlin answer (wrong baud rate, another device): the
host drops the link and says so instead of buffering without end. The port is opened exclusively
(a lock), so a second host or a `doctor` check cannot talk into a running print.
If the port goes away the host stops writing, keeps the file position (the first line not
confirmed), and reports; after `connect` again the job can be resumed or aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from workbench_plugins.printing.gcode_meta import gcode_commands

log = logging.getLogger(__name__)
_TEMP = re.compile(r"\b(T|B)\s*:\s*(-?[\d.]+)\s*/\s*(-?[\d.]+)")
_M73 = re.compile(r"^M73\s+P(\d+)(?:\s+R(\d+))?")
STOP_COMMANDS = ("M104 S0", "M140 S0", "M107", "M84")  # heaters and fan off, motors free
MAX_LINE_BYTES = 64 * 1024  # Marlin lines are < 100 bytes; this is far beyond any real one


class HostState(StrEnum):
    DISCONNECTED = "disconnected"
    CONNECTING = "connecting"
    IDLE = "idle"
    PRINTING = "printing"
    PAUSED = "paused"
    HALTED = "halted"  # after M112: the printer needs a reset


class SerialHostError(Exception):
    pass


class PortBusy(SerialHostError):
    """Another program (or host) holds the port: it may be printing, so it was not disturbed."""


def numbered(number: int, command: str) -> str:
    body = f"N{number} {command}"
    value = 0
    for byte in body.encode("ascii", errors="replace"):
        value ^= byte
    return f"{body}*{value}\n"


def garbage_message(port: str, baudrate: int) -> str:
    return (
        f"{port} sent more than {MAX_LINE_BYTES // 1024} KiB without a line end, which no Marlin "
        f"printer does, so the link was closed. Check the baud rate (serial_baudrate = "
        f"{baudrate} in the printing settings) and that this port is the printer's."
    )


def firmware_handshake(port: str, baudrate: int = 115200, timeout_s: float = 5.0) -> str:
    """Open `port`, send M115 and return the firmware line; SerialHostError says what failed.

    Blocking (pyserial, 0.1 s reads): for `doctor` and scripts, never on the GUI thread. A printer
    that resets when the port opens (MK3) prints `start` when it is up; M115 is sent again then,
    since the first one may have gone to the bootloader.
    """
    import serial  # pyserial

    try:
        link = serial.Serial(port, baudrate, timeout=0.1, write_timeout=1.0, exclusive=True)
    except (serial.SerialException, OSError) as error:
        if "lock" in str(error).lower():
            raise PortBusy(f"{port} is in use by another program ({error})") from None
        raise SerialHostError(f"cannot open {port}: {error}") from None
    with link:
        try:
            return _ask_firmware(link, port, baudrate, timeout_s)
        except (serial.SerialException, OSError) as error:  # unplugged while asking
            raise SerialHostError(f"{port} failed while asking M115: {error}") from None


def _ask_firmware(link: Any, port: str, baudrate: int, timeout_s: float) -> str:
    link.write(b"M115\n")
    pending = b""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pending += link.read(max(1, link.in_waiting))
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.decode("ascii", errors="replace").strip()
            if "FIRMWARE_NAME" in line:
                return line
            if line == "start":
                link.write(b"M115\n")
            elif line.startswith("ok"):
                return "answered M115 with ok, but without a FIRMWARE_NAME line"
        if len(pending) > MAX_LINE_BYTES:
            raise SerialHostError(garbage_message(port, baudrate))
    raise SerialHostError(f"{port} opened, but nothing answered M115 within {timeout_s:g} s")


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
        self._serial: Any = None
        self._fd = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._rx = b""
        self._reset_link()
        self._booted: asyncio.Event | None = None
        self._idle: asyncio.Event | None = None

    def _reset_link(self) -> None:
        self._next_n = 1
        self._history: dict[int, tuple[str, int | None]] = {}  # n -> (command, file index)
        self._resend_at: int | None = None
        self._swallow: tuple[int, int] = (0, 0)  # (line, how many repeats to ignore)
        self._in_flight: deque[tuple[int, bool]] = deque()  # (n, refused)
        self._credits = self.window
        self._manual: deque[str] = deque()
        self._last_rx = time.monotonic()

    # -- connection ---------------------------------------------------------------------------
    async def connect(self) -> None:
        """Open the port, wait for the boot `start` (an MK3 resets on open), number from 0."""
        import serial  # pyserial

        self._loop = asyncio.get_running_loop()
        self._booted, self._idle = asyncio.Event(), asyncio.Event()
        self._set_state(HostState.CONNECTING, f"opening {self.port}")
        try:
            self._serial = await asyncio.to_thread(
                serial.Serial,
                self.port,
                self.baudrate,
                timeout=0,
                write_timeout=0,
                exclusive=True,
            )
        except (serial.SerialException, OSError) as error:
            self._set_state(HostState.DISCONNECTED, f"cannot open {self.port}: {error}")
            raise SerialHostError(
                f"Cannot open the printer port {self.port}: {error}. Check the cable and that "
                "no other program (another host, a slicer) holds the port."
            ) from None
        self._fd = self._serial.fileno()
        os.set_blocking(self._fd, False)
        self._rx = b""
        self._reset_link()
        self._loop.add_reader(self._fd, self._on_readable)
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
        self._manual.extend(["M110 N0", f"M155 S{self.autoreport_s}"])
        self._pump()

    async def disconnect(self) -> None:
        self._drop_link("disconnected by the user")

    @property
    def connected(self) -> bool:
        return self._fd >= 0

    def _drop_link(self, reason: str) -> None:
        if self._fd >= 0 and self._loop is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._fd)
        self._fd = -1
        if self._serial is not None:
            with contextlib.suppress(Exception):
                self._serial.close()
            self._serial = None
        if self.job is not None:
            # lines in flight may or may not have run: resume from the first unconfirmed one
            self.job.next_index = self.job.confirmed
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
        if self._fd >= 0:
            self._write(b"M112\n")
        self._set_state(HostState.HALTED, "emergency stop sent (M112); reset the printer")

    async def wait_idle(self, timeout: float) -> None:
        """Until the job finished or the link dropped (tests and headless printing)."""
        assert self._idle is not None
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
        while self._credits > 0 and self._fd >= 0 and self.state is not HostState.HALTED:
            if self._resend_at is not None:
                number = self._resend_at
                command, index = self._history[number]
                self._resend_at = number + 1 if number + 1 < self._next_n else None
                self.resends += 1
            elif self._manual:
                command, index = self._manual.popleft(), None
                number = self._new_number(command, index)
            elif self._sending_file():
                assert self.job is not None
                index = self.job.next_index
                command = self.job.commands[index]
                self.job.next_index += 1
                number = self._new_number(command, index)
            else:
                return
            self._credits -= 1
            self._in_flight.append((number, False))
            self.lines_sent += 1
            if not self._write(numbered(number, command).encode("ascii", errors="replace")):
                return

    def _sending_file(self) -> bool:
        job = self.job
        return self.state is HostState.PRINTING and job is not None and job.next_index < job.total

    def _new_number(self, command: str, index: int | None) -> int:
        if command.startswith("M110"):
            # renumbering: the printer's next expected line is 1, and history before is void
            self._history.clear()
            self._history[0] = (command, index)
            self._next_n = 1
            return 0
        number = self._next_n
        self._history[number] = (command, index)
        self._next_n += 1
        return number

    def _write(self, data: bytes) -> bool:
        try:
            written = os.write(self._fd, data)
            if written != len(data):  # a full kernel buffer: rare for one short line
                os.set_blocking(self._fd, True)
                os.write(self._fd, data[written:])
                os.set_blocking(self._fd, False)
        except OSError as error:
            self._drop_link(f"the printer went away while writing ({error})")
            return False
        return True

    # -- reading ------------------------------------------------------------------------------
    def _on_readable(self) -> None:
        try:
            chunk = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError as error:
            chunk, reason = b"", f"the printer went away ({error.strerror or error})"
        else:
            reason = "the printer went away (the port closed)"
        if not chunk:
            self._drop_link(reason)
            return
        self._last_rx = time.monotonic()
        self._rx += chunk
        *lines, self._rx = self._rx.split(b"\n")
        for raw in lines:
            line = raw.decode("ascii", errors="replace").strip()
            if line:
                self._handle(line)
        if len(self._rx) > MAX_LINE_BYTES:
            self._rx = b""
            self._drop_link(garbage_message(self.port, self.baudrate))
            return
        self._pump()

    def _handle(self, line: str) -> None:
        self._notify("rx", line)
        if line.startswith("ok"):
            self._on_ok()
            if "T:" in line:
                self._read_temperatures(line)
        elif line.startswith("Resend:") or line.startswith("rs "):
            self._on_resend(int(re.sub(r"\D", "", line.split(":")[-1]) or 0))
        elif line.startswith("Error:"):
            if self._in_flight:
                number, _ = self._in_flight[0]
                self._in_flight[0] = (number, True)
            if "halted" in line.lower() or "kill" in line.lower():
                self._set_state(HostState.HALTED, line)
        elif line == "start":
            if self._booted is not None:
                self._booted.set()
            if self.state in (HostState.PRINTING, HostState.PAUSED) and self.job is not None:
                # a reset mid-print: the printer forgot everything; hold the job for the user
                self._reset_link()
                self.job.next_index = self.job.confirmed
                self._manual.extend(["M110 N0", f"M155 S{self.autoreport_s}"])
                self._set_state(HostState.PAUSED, "the printer restarted: resume or abort")
        elif "T:" in line:
            self._read_temperatures(line)
        # echo:busy only keeps the link alive (_last_rx above)

    def _on_ok(self) -> None:
        self._credits = min(self.window, self._credits + 1)
        if not self._in_flight:
            return
        number, refused = self._in_flight.popleft()
        if refused:
            return
        command, index = self._history.get(number, ("", None))
        job = self.job
        if index is not None and job is not None and index >= job.confirmed:
            job.confirmed = index + 1
            match = _M73.match(command)
            if match:
                job.percent = int(match.group(1))
                job.minutes_left = int(match.group(2)) if match.group(2) else None
            if job.done:
                self._set_state(HostState.IDLE, f"finished {job.path.name}")
                if self._idle is not None:
                    self._idle.set()
            elif job.confirmed % 50 == 0:
                self._notify("status")

    def _on_resend(self, number: int) -> None:
        line, repeats = self._swallow
        if number == line and repeats > 0:
            self._swallow = (line, repeats - 1)
            return
        if number not in self._history:
            self.message = f"the printer asked for line {number}, which is not in the history"
            self._notify("status")
            return
        sent_upto = (self._resend_at - 1) if self._resend_at is not None else self._next_n - 1
        self._swallow = (number, max(0, sent_upto - number))
        self._resend_at = number

    def _read_temperatures(self, line: str) -> None:
        for name, actual, target in _TEMP.findall(line):
            key = "nozzle" if name == "T" else "bed"
            self.temperatures[key] = (float(actual), float(target))
        self._notify("temperature")

    # -- reporting ----------------------------------------------------------------------------
    def snapshot(self) -> HostSnapshot:
        job = self.job
        progress = time_left = None
        if job is not None and job.total:
            progress = job.confirmed / job.total  # file position; M73 P only says the same
            if job.minutes_left is not None:
                time_left = job.minutes_left * 60.0
        return HostSnapshot(
            port=self.port,
            state=self.state,
            temperatures=dict(self.temperatures),
            file=job.path.name if job else "",
            line=job.confirmed if job else 0,
            total=job.total if job else 0,
            progress=progress,
            time_left_s=time_left,
            message=self.message,
        )

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
