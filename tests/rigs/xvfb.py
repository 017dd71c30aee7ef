"""An Xvfb X server on a free display, for tests that need a real window system (xcb, VTK).

Use the context manager `running_xvfb()` or the fixture `xvfb_display`; both give the DISPLAY
value (":N") and stop the server afterwards. Without /usr/bin/Xvfb the test is skipped, saying so
(in CI it fails instead: tests/rigs/require.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.rigs.require import require_rig
from workbench.ui.startup.display import running_xvfb as xvfb_server

XVFB = Path("/usr/bin/Xvfb")


@contextmanager
def running_xvfb(width: int = 1280, height: int = 800, depth: int = 24) -> Iterator[str]:
    """Run Xvfb for the duration of the block; yields the DISPLAY value. The server is the one
    the start-up benchmark uses (workbench.ui.startup.display: first free display from :90)."""
    if not XVFB.exists():
        require_rig("xvfb", False, f"{XVFB} is not installed (Debian package xvfb)")
    with xvfb_server(str(XVFB), f"{width}x{height}x{depth}") as number:
        yield f":{number}"


@pytest.fixture
def xvfb_display() -> Iterator[str]:
    with running_xvfb() as display:
        yield display
