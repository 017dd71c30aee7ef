"""The programs this Workbench runs as: its Python, and itself as a command.

In a bundle (PyInstaller sets `sys.frozen`) `sys.executable` is the `workbench` program, not a
Python: it takes Workbench's arguments, and `-m module` means nothing to it.
"""

from __future__ import annotations

import shutil
import sys


def is_bundle() -> bool:
    return bool(getattr(sys, "frozen", False))


def workbench_command() -> list[str]:
    """The command line that starts this same Workbench (its arguments follow)."""
    return [sys.executable] if is_bundle() else [sys.executable, "-m", "workbench"]


def python_program() -> str | None:
    """The Python a script should run with: Workbench's own interpreter (with its modules, e.g.
    engibench), or in a bundle, which has no interpreter to offer, the system's python3 (None:
    there is none)."""
    if not is_bundle():
        return sys.executable
    return shutil.which("python3") or shutil.which("python")
