"""An Xvfb X server on a free display, for tests that need a real window system (xcb, VTK).

Use the context manager `running_xvfb()` or the fixture `xvfb_display`; both give the DISPLAY
value (":N") and stop the server afterwards. Without /usr/bin/Xvfb the test is skipped, saying so
(in CI it fails instead: tests/rigs/require.py).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.rigs.require import require_rig

XVFB = Path("/usr/bin/Xvfb")
SOCKETS = Path("/tmp/.X11-unix")
FIRST_DISPLAY = 90  # above the numbers desktops and CI images usually take
LAST_DISPLAY = 400
START_TIMEOUT_S = 10.0


def _free_display() -> Iterator[int]:
    for number in range(FIRST_DISPLAY, LAST_DISPLAY):
        if not (SOCKETS / f"X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            yield number


def _start(number: int, screen: str) -> subprocess.Popen[bytes] | None:
    """Start Xvfb on :number; None if it exited (another server won the race for that number)."""
    server = subprocess.Popen(
        [str(XVFB), f":{number}", "-screen", "0", screen, "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    socket = SOCKETS / f"X{number}"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return None
        if socket.exists():
            return server
        time.sleep(0.05)
    _stop(server)
    raise RuntimeError(f"Xvfb :{number} did not create {socket} within {START_TIMEOUT_S:.0f} s")


def _stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=5)


@contextmanager
def running_xvfb(width: int = 1280, height: int = 800, depth: int = 24) -> Iterator[str]:
    """Run Xvfb for the duration of the block; yields the DISPLAY value."""
    if not XVFB.exists():
        require_rig("xvfb", False, f"{XVFB} is not installed (Debian package xvfb)")
    for number in _free_display():
        server = _start(number, f"{width}x{height}x{depth}")
        if server is None:
            continue
        try:
            yield f":{number}"
        finally:
            _stop(server)
        return
    raise RuntimeError(f"No free X display between :{FIRST_DISPLAY} and :{LAST_DISPLAY}")


@pytest.fixture
def xvfb_display() -> Iterator[str]:
    with running_xvfb() as display:
        yield display
