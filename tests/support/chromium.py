"""A page's screenshot in headless Chromium (Debian's package), as a person would see it: the
flags keep it off this machine's closed network and out of the user's profile."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

from tests.rigs.require import require_rig

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(page: Path, shot: Path, profile: Path, size: str = "1400,2000") -> np.ndarray:
    """Render `page` into `shot` (PNG) and return its grey levels (rows x columns)."""
    require_rig("chromium", CHROMIUM is not None, "chromium is not installed (Debian package)")
    assert CHROMIUM is not None
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            f"--screenshot={shot}",
            f"--window-size={size}",
            page.as_uri(),
        ],
        check=True,
        timeout=120,
        capture_output=True,
    )
    from PIL import Image

    return np.asarray(Image.open(shot).convert("L"), dtype=float)
