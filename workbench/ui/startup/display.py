"""Where the benchmark's windows open: an Xvfb of its own, the current desktop, or offscreen.

"auto" prefers an Xvfb started for the run (a real X server: xcb, fonts and window mapping as on a
desktop, and the same for every run); without Xvfb it uses the desktop the benchmark runs in
(DISPLAY or WAYLAND_DISPLAY), else Qt's offscreen platform.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

CHOICES = ("auto", "xvfb", "desktop", "offscreen")
SOCKETS = Path("/tmp/.X11-unix")
DISPLAY_NUMBERS = range(90, 400)  # above what desktops and CI images usually take
START_TIMEOUT_S = 10.0
SCREEN = "1280x800x24"


@dataclass(frozen=True)
class Display:
    description: str  # for the report: "Xvfb :93 (xcb)", "offscreen", ...
    environment: dict[str, str] = field(default_factory=dict)  # set for each start
    removed: tuple[str, ...] = ()  # variables taken out of each start's environment


@contextmanager
def display_for_runs(choice: str = "auto") -> Iterator[Display]:
    """The display the starts use, for the duration of the block (an Xvfb is stopped after)."""
    if choice not in CHOICES:
        raise ValueError(f"Unknown display {choice!r}: choose one of {', '.join(CHOICES)}.")
    xvfb = shutil.which("Xvfb")
    if choice == "xvfb" or (choice == "auto" and xvfb):
        if xvfb is None:
            raise RuntimeError(
                "Xvfb is not installed (Debian package xvfb): choose another display."
            )
        with running_xvfb(xvfb, SCREEN) as number:
            yield Display(
                f"Xvfb :{number} {SCREEN} (xcb)",
                {"DISPLAY": f":{number}", "QT_QPA_PLATFORM": "xcb"},
                removed=("WAYLAND_DISPLAY",),
            )
        return
    desktop = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")
    if choice == "desktop" or (choice == "auto" and desktop):
        if not desktop:
            raise RuntimeError("No desktop here (neither DISPLAY nor WAYLAND_DISPLAY is set).")
        platform = os.environ.get("QT_QPA_PLATFORM", "the default platform")
        yield Display(f"this desktop ({desktop}, {platform})")
        return
    yield Display("Qt offscreen platform (no window system)", {"QT_QPA_PLATFORM": "offscreen"})


@contextmanager
def running_xvfb(program: str, screen: str) -> Iterator[int]:
    """An Xvfb (`program`) with one `screen` ("WxHxDEPTH") on the first free display number, for
    the duration of the block; yields the number. The test rig (tests/rigs/xvfb.py) uses it too."""
    for number in DISPLAY_NUMBERS:
        if (SOCKETS / f"X{number}").exists() or Path(f"/tmp/.X{number}-lock").exists():
            continue
        server = subprocess.Popen(
            [program, f":{number}", "-screen", "0", screen, "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            if _wait_for_socket(server, SOCKETS / f"X{number}"):
                yield number
                return
        finally:
            _stop(server)
    raise RuntimeError(
        f"No free X display from :{DISPLAY_NUMBERS.start} to :{DISPLAY_NUMBERS.stop}"
    )


def _wait_for_socket(server: subprocess.Popen[bytes], socket: Path) -> bool:
    """True once the server listens; False if it exited (another server took the number)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return False
        if socket.exists() and _holds_lock(server, socket):
            return True
        time.sleep(0.05)
    raise RuntimeError(f"Xvfb did not create {socket} within {START_TIMEOUT_S:.0f} s")


def _holds_lock(server: subprocess.Popen[bytes], socket: Path) -> bool:
    """Whether `server` took the display: of two starts racing for one number (parallel tests),
    both see the winner's socket, and the loser exits only a moment later."""
    try:
        return int((Path("/tmp") / f".{socket.name}-lock").read_text().strip()) == server.pid
    except (OSError, ValueError):
        return False


def _stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=5)
