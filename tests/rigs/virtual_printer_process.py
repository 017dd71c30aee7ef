"""OctoPrint's virtual printer bridged onto a pseudo-terminal (run by the OctoPrint rig's python).

This script runs in its own process under `.rigs/octoprint/bin/python` (OctoPrint 1.11.8 is not
importable from the project's venv); tests/rigs/virtual_printer.py starts and drives it. Only the
standard library and OctoPrint are imported here.

The printer is `octoprint.plugins.virtual_printer.virtual.VirtualPrinter`, unchanged. It talks
through `write(bytes)` (one line per call: it takes only the first line of a chunk) and
`readline()`; two bridge threads copy between it and the pty master. The adapters it needs
outside OctoPrint are small: a settings object over the plugin's own defaults plus the test's
overrides, a printer profile manager (only for the optional M115 area report) and an empty
plugin manager (its custom-action hooks).

Control on stdin, one word a line, answered on stdout:
  unplug -> the pty (master and our slave copy) closes and the link goes away: the host's read
            gets EIO; the printer object keeps running and keeps its state. Answer "unplugged".
  replug -> a new pty, linked at the same path. Answer "replugged".
  restart -> the printer resets as after a power blip or a port open on an MK3 (its own
            `!!DEBUG:reset`: line numbers from 0, `start` printed). Answer "restarted".
  quit   -> exit.
At start it prints "ready <path>". Every line the printer received is appended to the
received-log file, as it came off the wire (`N12 G1 X5*34`).

`speed` (a rig option, not one of the printer's settings) runs the printer's clock faster: its
sleeps (moves, heat-up steps, the `wait` interval) are divided by it and its monotonic clock
advances that much faster, so a heat-up at its 10 degC/s also runs `speed` times faster.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import select
import sys
import threading
import time
import tty
from pathlib import Path
from typing import Any

MK3S_VOLUME = {"width": 250, "depth": 210, "height": 210, "origin": "lowerleft"}


def deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


class PluginSettings:
    """The part of OctoPrint's PluginSettings the virtual printer calls."""

    def __init__(self, values: dict[str, Any], base_folder: Path) -> None:
        self._values = values
        self._base = base_folder

    def get(self, path: list[str], merged: bool = False) -> Any:
        node: Any = self._values
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return copy.deepcopy(node)

    def get_int(self, path: list[str]) -> int | None:
        value = self.get(path)
        return None if value is None else int(value)

    def get_float(self, path: list[str]) -> float | None:
        value = self.get(path)
        return None if value is None else float(value)

    def get_boolean(self, path: list[str]) -> bool:
        value = self.get(path)
        if isinstance(value, str):
            return value.strip().lower() in ("true", "yes", "y", "1", "on")
        return bool(value)

    def global_get_basefolder(self, name: str) -> str:
        folder = self._base / name
        folder.mkdir(parents=True, exist_ok=True)
        return str(folder)


class ProfileManager:
    def get_current_or_default(self) -> dict[str, Any]:
        return {"volume": dict(MK3S_VOLUME)}


class NoPlugins:
    def get_hooks(self, name: str) -> dict[str, Any]:
        return {}


class ScaledClock:
    """Stands in for the `time` module inside virtual.py: `speed` times faster."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self._origin = time.monotonic()

    def monotonic(self) -> float:
        return self._origin + (time.monotonic() - self._origin) * self.speed

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds) / self.speed)

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


class PtyBridge:
    """A pty whose master side is the printer's cable; `unplug`/`replug` pull and plug it."""

    def __init__(self, printer: Any, link: Path, received: Path) -> None:
        self.printer = printer
        self.link = link
        self.received = received.open("a", encoding="utf-8", buffering=1)
        self.lock = threading.Lock()
        self.master = self.slave = -1
        self.stopping = False

    def plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no CR/LF translation: bytes as a USB CDC port
        os.set_blocking(master, False)
        with self.lock:
            self.master, self.slave = master, slave
        self.link.unlink(missing_ok=True)
        self.link.symlink_to(os.ttyname(slave))

    def unplug(self) -> None:
        self.link.unlink(missing_ok=True)
        with self.lock:
            fds, self.master, self.slave = (self.master, self.slave), -1, -1
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _current(self) -> int:
        with self.lock:
            return self.master

    def host_to_printer(self) -> None:
        pending = b""
        while not self.stopping:
            fd = self._current()
            if fd < 0:
                pending = b""
                time.sleep(0.02)
                continue
            try:
                ready, _, _ = select.select([fd], [], [], 0.1)
                with self.lock:
                    chunk = os.read(fd, 4096) if ready and fd == self.master else b""
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:  # unplugged under us, or nobody has the slave open
                time.sleep(0.02)
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._deliver(line.rstrip(b"\r"))

    def _deliver(self, line: bytes) -> None:
        if not line.strip():
            return
        self.received.write(line.decode("ascii", errors="replace") + "\n")
        data = line + b"\n"
        while data:  # its receive buffer takes part of a long line and says how much
            try:
                written = self.printer.write(data)
            except Exception:  # SerialTimeoutException: its buffer stayed full
                continue
            if not written:
                return  # closed
            data = data[written:]

    def printer_to_host(self) -> None:
        while not self.stopping:
            raw = self.printer.readline()
            if not raw:
                continue
            data = raw if raw.endswith(b"\n") else raw + b"\n"
            self._send(data)

    def _send(self, data: bytes) -> None:
        deadline = time.monotonic() + 2.0  # a host that reads nothing for 2 s loses the line
        while data and time.monotonic() < deadline and not self.stopping:
            fd = self._current()
            if fd < 0:
                return  # unplugged: what the printer says goes nowhere
            try:
                _, ready, _ = select.select([], [fd], [], 0.1)
                with self.lock:
                    if ready and fd == self.master:
                        data = data[os.write(fd, data) :]
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                time.sleep(0.02)


def make_printer(folder: Path, overrides: dict[str, Any], speed: float) -> Any:
    from octoprint.plugins.virtual_printer import VirtualPrinterPlugin, virtual

    virtual.plugin_manager = NoPlugins  # only its custom-action hooks are asked for
    if speed != 1.0:
        virtual.time = ScaledClock(speed)  # type: ignore[assignment]
    values = deep_merge(VirtualPrinterPlugin().get_settings_defaults(), overrides)
    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    return virtual.VirtualPrinter(
        PluginSettings(values, folder), ProfileManager(), data_folder=str(data), read_timeout=0.2
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, required=True)
    parser.add_argument("--link", type=Path, required=True)
    parser.add_argument("--received", type=Path, required=True)
    parser.add_argument("--settings", default="{}", help="JSON: overrides of its settings")
    parser.add_argument("--speed", type=float, default=1.0)
    args = parser.parse_args()
    serve(
        make_printer(args.folder, json.loads(args.settings), args.speed), args.link, args.received
    )


def serve(printer: Any, link: Path, received: Path) -> None:
    """Bridge `printer` onto a pty at `link` and obey unplug/replug/restart/quit on stdin, then
    exit (both runners end here)."""
    bridge = PtyBridge(printer, link, received)
    bridge.plug()
    for target in (bridge.host_to_printer, bridge.printer_to_host):
        threading.Thread(target=target, daemon=True).start()
    print(f"ready {link}", flush=True)
    for command in sys.stdin:
        word = command.strip()
        if word == "unplug":
            bridge.unplug()
            print("unplugged", flush=True)
        elif word == "replug":
            bridge.plug()
            print("replugged", flush=True)
        elif word == "restart":
            bridge.printer.write(b"!!DEBUG:reset\n")  # its own reset, not a line from the host
            print("restarted", flush=True)
        elif word == "quit":
            break
    bridge.stopping = True
    with contextlib.suppress(Exception):
        printer.close()
    os._exit(0)  # the printer's own threads are not daemons


if __name__ == "__main__":
    main()
