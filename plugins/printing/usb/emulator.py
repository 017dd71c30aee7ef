"""A Marlin-like Prusa printer on a pseudo-terminal, for tests, demos and the streaming benchmark.

Our own model of the protocol's shape (numbered lines with XOR checksums, `ok` per line, `Resend`,
`echo:busy: processing`, temperature reports, boot `start`, M112 handled before the queue). It can
inject checksum errors, command delays and an unplug (the pty closes). Every executed command is
appended to `executed` (and to `log_path`), which is what tests compare against the G-code file.

Threads, not asyncio: it plays the printer's own firmware, so it may block as much as it likes.
"""

from __future__ import annotations

import contextlib
import os
import queue
import random
import re
import select
import threading
import time
import tty
from dataclasses import dataclass, field
from pathlib import Path

_PARAM = re.compile(r"([A-Z])(-?[\d.]+)")
AMBIENT_C = 25.0


def checksum(text: str) -> int:
    value = 0
    for byte in text.encode("ascii", errors="replace"):
        value ^= byte
    return value


@dataclass
class EmulatorOptions:
    checksum_error_rate: float = 0.0  # fraction of numbered lines "corrupted in transit"
    seed: int = 0
    command_delay_s: float = 0.0  # time each move (G0/G1) takes
    busy_interval_s: float = 2.0  # how often `echo:busy: processing` comes during long commands
    heat_rate_c_per_s: float = 400.0  # fast by default: tests need not wait for a real hotend
    boot_delay_s: float = 0.05  # `start` comes this long after the port appears
    unplug_at_line: int | None = None  # close the pty when this line number arrives
    printer_model: str = "MK3S"


@dataclass
class _Heater:
    actual: float = AMBIENT_C
    target: float = 0.0

    def step(self, dt: float, rate: float) -> None:
        goal = self.target if self.target > 0 else AMBIENT_C
        delta = max(-rate * dt, min(rate * dt, goal - self.actual))
        self.actual += delta


@dataclass
class MarlinEmulator:
    options: EmulatorOptions = field(default_factory=EmulatorOptions)
    log_path: Path | None = None
    executed: list[tuple[int | None, str]] = field(default_factory=list)
    errors_injected: int = 0
    resends_requested: int = 0

    def __post_init__(self) -> None:
        self._random = random.Random(self.options.seed)
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no CR/LF translation: bytes as a USB CDC port
        self.port = os.ttyname(self._slave)
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._last_n = 0
        self._autoreport_s = 0.0
        self.hotend, self.bed = _Heater(), _Heater()
        self.progress: tuple[int, int] | None = None  # (percent, minutes left) from M73
        self.killed = False
        self.unplugged = False
        self.paused = False
        self._threads: list[threading.Thread] = []

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> MarlinEmulator:
        for target in (self._read_loop, self._execute_loop, self._heater_loop):
            thread = threading.Thread(target=target, name=f"emulator-{target.__name__}")
            thread.daemon = True
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        self._queue.put(None)
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(2)
        self._close_pty()  # if never started

    def unplug(self) -> None:
        """The cable is pulled: the pty closes under the host."""
        self.unplugged = True
        self._stop.set()
        self._queue.put(None)
        # only the reader closes the pty: closing an fd another thread is reading keeps it open
        if self._threads and self._threads[0] is not threading.current_thread():
            self._threads[0].join(2)
        self._close_pty()

    def _close_pty(self) -> None:
        with self._write_lock:
            for fd in (self._master, self._slave):
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._master = self._slave = -1

    def __enter__(self) -> MarlinEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- wire ---------------------------------------------------------------------------------
    def send(self, text: str) -> None:
        with self._write_lock:
            if self._master < 0:
                return
            with contextlib.suppress(OSError):
                os.write(self._master, (text + "\n").encode())

    def _read_loop(self) -> None:
        time.sleep(self.options.boot_delay_s)
        self.send("start")
        pending = b""
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self._master], [], [], 0.02)
                if not ready:
                    continue
                chunk = os.read(self._master, 4096)
            except (OSError, ValueError):
                break
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                line = raw.decode("ascii", errors="replace").strip()
                if not line:
                    continue
                # the emergency parser: M112 acts before anything queued
                body = line.split("*")[0]
                words = body.split()
                if words and words[0].startswith("N") and len(words) > 1:
                    words = words[1:]
                if words and words[0] == "M112":
                    self._kill()
                    continue
                self._queue.put(line)
        self._close_pty()

    def _kill(self) -> None:
        self.killed = True
        self._log(None, "M112")
        self.hotend.target = self.bed.target = 0.0
        self.send("echo:Emergency stop (M112). Printer halted.")
        self.send("Error:Printer halted. kill() called!")

    def _log(self, number: int | None, command: str) -> None:
        self.executed.append((number, command))
        if self.log_path is not None:
            with self.log_path.open("a", encoding="utf-8") as log:
                log.write(f"{'' if number is None else number}\t{command}\n")

    # -- firmware -----------------------------------------------------------------------------
    def _execute_loop(self) -> None:
        while True:
            line = self._queue.get()
            if line is None or self._stop.is_set():
                return
            if self.killed:
                continue  # a halted printer answers nothing until it is reset
            try:
                self._receive(line)
            except Exception as error:  # a firmware bug must not look like a silent printer
                self.send(f"Error:emulator failed on {line!r}: {error}")
                self.send("ok")

    def _request_resend(self, reason: str) -> None:
        self.resends_requested += 1
        self.send(f"Error:{reason}, Last Line: {self._last_n}")
        self.send(f"Resend: {self._last_n + 1}")
        self.send("ok")

    def _receive(self, line: str) -> None:
        number: int | None = None
        command = line
        if line.startswith("N"):
            if "*" not in line:
                self._request_resend("No Checksum with line number")
                return
            body, _, given = line.rpartition("*")
            head, _, command = body.partition(" ")
            try:
                number = int(head[1:])
                valid = int(given) == checksum(body)
            except ValueError:  # garbled number or checksum
                self._request_resend("checksum mismatch")
                return
            if valid and self._random.random() < self.options.checksum_error_rate:
                valid = False  # injected: as if a byte was corrupted on the cable
                self.errors_injected += 1
            if not valid:
                self._request_resend("checksum mismatch")
                return
            command = command.strip()
            if self.options.unplug_at_line is not None and number == self.options.unplug_at_line:
                self.unplug()
                return
            if command.startswith("M110"):
                match = _PARAM.search(command[4:])
                self._last_n = int(float(match.group(2))) if match else number
                self._log(number, command)
                self.send("ok")
                return
            if number != self._last_n + 1:
                self._request_resend("Line Number is not Last Line Number+1")
                return
            self._last_n = number
        self._execute(number, command.strip())

    def _temperatures(self) -> str:
        h, b = self.hotend, self.bed
        return (
            f"T:{h.actual:.1f} /{h.target:.1f} B:{b.actual:.1f} /{b.target:.1f} "
            f"T0:{h.actual:.1f} /{h.target:.1f} @:0 B@:0"
        )

    def _execute(self, number: int | None, command: str) -> None:
        words = command.split()
        code = words[0].upper() if words else ""
        params: dict[str, float] = {}
        for match in _PARAM.finditer(command[len(code) :]):
            with contextlib.suppress(ValueError):  # "M115 U3.11.0": a version, not a number
                params[match.group(1)] = float(match.group(2))
        reply = "ok"
        if code in ("G0", "G1", "G2", "G3", "G28", "G29", "G80"):
            self._busy_wait(self.options.command_delay_s)
        elif code in ("M104", "M109"):
            self.hotend.target = params.get("S", 0.0)
            if code == "M109":
                self._wait_heater(self.hotend)
        elif code in ("M140", "M190"):
            self.bed.target = params.get("S", 0.0)
            if code == "M190":
                self._wait_heater(self.bed)
        elif code == "M105":
            reply = f"ok {self._temperatures()}"
        elif code == "M155":
            self._autoreport_s = params.get("S", 0.0)
        elif code == "M73" and "P" in params:
            self.progress = (int(params["P"]), int(params.get("R", -1)))
        elif code == "M115":
            self.send(
                f"FIRMWARE_NAME:Prusa-Firmware 3.13.3 (emulated) MACHINE_TYPE:Prusa i3 "
                f"{self.options.printer_model} EXTRUDER_COUNT:1"
            )
            self.send("Cap:AUTOREPORT_TEMP:1")
        elif code == "M601":
            self.paused = True
        elif code in ("M602", "M603"):
            self.paused = False
        if self.killed:
            return  # M112 arrived while this ran: the move was cut short, nothing is answered
        self._log(number, command)
        self.send(reply)

    def _busy_wait(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        next_busy = time.monotonic() + self.options.busy_interval_s
        while (now := time.monotonic()) < end and not (self._stop.is_set() or self.killed):
            if now >= next_busy:
                self.send("echo:busy: processing")
                next_busy = now + self.options.busy_interval_s
            time.sleep(min(0.01, max(0.0, end - now)))

    def _wait_heater(self, heater: _Heater) -> None:
        next_report = time.monotonic()
        while abs(heater.actual - heater.target) > 1.0 and not self._stop.is_set():
            if self.killed:
                return
            if time.monotonic() >= next_report:
                self.send(f"{self._temperatures()} W:?")
                next_report = time.monotonic() + 1.0
            time.sleep(0.01)

    def _heater_loop(self) -> None:
        last = time.monotonic()
        next_report = last
        while not self._stop.wait(0.05):
            now = time.monotonic()
            for heater in (self.hotend, self.bed):
                heater.step(now - last, self.options.heat_rate_c_per_s)
            last = now
            if self._autoreport_s > 0 and now >= next_report and not self.killed:
                self.send(self._temperatures())
                next_report = now + self._autoreport_s


def read_log(path: Path) -> list[tuple[int | None, str]]:
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        number, _, command = line.partition("\t")
        entries.append((int(number) if number else None, command))
    return entries
