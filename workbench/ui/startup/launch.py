"""One start of a program under the benchmark: launched, timed by its own hook, read back.

Both programs run with the benchmark's python, `-m`, from the temporary home folder (not the
source tree), with WORKBENCH_HOME pointing there and the launch time in the environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from workbench.core.paths import HOME_VARIABLE
from workbench.ui.startup.display import Display
from workbench.ui.startup.variables import LAUNCH_VARIABLE, REPORT_VARIABLE

STDERR_TAIL = 1500


@dataclass(frozen=True)
class Program:
    key: str  # in the JSON: "workbench", "bare"
    title: str  # in the table
    module: str  # run as `python -m <module>`


WORKBENCH = Program("workbench", "Workbench", "workbench")
BARE = Program("bare", "bare PySide6 window", "workbench.ui.startup.bare_window")


@dataclass(frozen=True)
class Start:
    seconds: float  # launch to interactive
    first_paint_seconds: float
    cpu_seconds: float  # the process's CPU time until then (all its threads)
    platform: str  # Qt's platform plugin: xcb, offscreen, wayland
    qt: str
    mapped_files: list[str]


class StartFailed(RuntimeError):
    """A start that did not report (crashed, hung, refused): the message says which and why."""


def start_once(
    program: Program, *, display: Display, home: Path, scratch: Path, timeout_s: float
) -> Start:
    """Start `program`, wait for it to report and quit, return its report."""
    home.mkdir(parents=True, exist_ok=True)
    scratch.mkdir(parents=True, exist_ok=True)
    name = f"{program.key}-{uuid.uuid4().hex[:8]}"
    report = scratch / f"{name}.json"
    environment = _environment(display, home, report)
    with (scratch / f"{name}.stderr").open("w+b") as errors:
        environment[LAUNCH_VARIABLE] = repr(time.time())  # as late as possible before the start
        process = subprocess.Popen(
            [sys.executable, "-m", program.module],
            env=environment,
            cwd=home,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        try:
            code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise StartFailed(
                f"{program.title} did not quit within {timeout_s:.0f} s"
                f"{' after reporting' if report.exists() else ' and reported nothing'}."
                + _tail(errors)
            ) from None
        if code != 0 or not report.exists():
            raise StartFailed(
                f"{program.title} exited with {code} without a report." + _tail(errors)
            )
    return _read(report)


def _environment(display: Display, home: Path, report: Path) -> dict[str, str]:
    environment = {name: value for name, value in os.environ.items() if name not in display.removed}
    environment.update(display.environment)
    environment[HOME_VARIABLE] = str(home)
    environment[REPORT_VARIABLE] = str(report)
    return environment


def _read(report: Path) -> Start:
    found = json.loads(report.read_text(encoding="utf-8"))
    return Start(
        seconds=float(found["seconds"]),
        first_paint_seconds=float(found["first_paint_seconds"]),
        cpu_seconds=float(found["cpu_seconds"]),
        platform=str(found["platform"]),
        qt=str(found["qt"]),
        mapped_files=[str(path) for path in found["mapped_files"]],
    )


def _tail(errors: IO[bytes]) -> str:
    errors.seek(0)
    text = errors.read().decode("utf-8", "replace").strip()
    return f"\nIts last output:\n{text[-STDERR_TAIL:]}" if text else ""
