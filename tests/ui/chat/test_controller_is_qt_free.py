"""The chat's controller and its helpers load no Qt: a fresh interpreter imports them and
`-X importtime` lists every module that came with them."""

from __future__ import annotations

import subprocess
import sys

QT_FREE = (
    "workbench.ui.chat.controller",
    "workbench.ui.chat.commands",
    "workbench.ui.chat.model_choice",
    "workbench.ui.chat.summaries",
    "workbench.ui.chat.surface",
    "workbench.ui.chat.style",
    "workbench.ui.chat.tool_calls",
    "workbench.ui.chat.transcript",
    "workbench.ui.chat.wording",
)
QT = {"PySide6", "shiboken6", "qasync", "pyqtgraph"}


def imported_modules(stderr: str) -> set[str]:
    """Full module names from `-X importtime` output."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_importing_the_controller_loads_no_qt() -> None:
    statement = "; ".join(f"import {module}" for module in QT_FREE)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    modules = imported_modules(done.stderr)
    assert set(QT_FREE) <= modules  # the probe sees these imports
    assert "workbench.agents" in modules and "pydantic" in modules
    assert not {name.split(".")[0] for name in modules} & QT
