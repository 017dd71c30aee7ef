"""Test rig: a Marlin-like printer on a pseudo-terminal (workbench_plugins.printing.usb.emulator).

The emulator itself lives in the printing plugin because the streaming benchmark needs it outside
the tests; this rig starts and stops it around a test and logs every executed command to a file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from workbench_plugins.printing.usb.emulator import EmulatorOptions, MarlinEmulator, read_log

__all__ = ["EmulatorOptions", "MarlinEmulator", "executed_commands", "running_emulator"]


@contextmanager
def running_emulator(log_path: Path, **options: object) -> Iterator[MarlinEmulator]:
    """An emulator on a fresh pty; `options` are EmulatorOptions fields."""
    log_path.unlink(missing_ok=True)
    emulator = MarlinEmulator(EmulatorOptions(**options), log_path=log_path).start()  # type: ignore[arg-type]
    try:
        yield emulator
    finally:
        emulator.stop()


def executed_commands(log_path: Path) -> list[str]:
    """Commands the emulator executed, in order, from its log file."""
    return [command for _, command in read_log(log_path)] if log_path.exists() else []
