"""The benchmark's sequence: warm-up starts of each program, N warm starts, N cold starts.

Starts alternate between Workbench and the bare window, and the order within each pair flips
every round, so a slow moment of the machine does not fall on one program only.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.ui.startup import results
from workbench.ui.startup.cold import ColdStarts
from workbench.ui.startup.display import Display
from workbench.ui.startup.launch import BARE, WORKBENCH, Program, Start, start_once

PROGRAMS = (WORKBENCH, BARE)
TITLES = {program.key: program.title for program in PROGRAMS}


@dataclass
class Benchmark:
    display: Display
    scratch: Path  # the home folder and the reports go here
    runs: int
    warm_ups: int = 1  # unmeasured starts of each first (0: the first warm start is the first)
    timeout_s: float = 120.0
    drop_caches: bool = True  # cold starts also empty the whole page cache where allowed
    progress: Callable[[str], None] = print
    platforms: set[str] = field(default_factory=set)
    qt: str = ""
    mapped: dict[str, list[str]] = field(default_factory=dict)  # per program, from its 1st start

    def start(self, program: Program) -> Start:
        started = start_once(
            program,
            display=self.display,
            home=self.scratch / "home",
            scratch=self.scratch / "reports",
            timeout_s=self.timeout_s,
        )
        self.platforms.add(started.platform)
        self.qt = started.qt
        self.mapped.setdefault(program.key, started.mapped_files)
        return started

    def rounds(
        self, kind: str, runs: int, before: Callable[[str], None] | None = None
    ) -> dict[str, Any]:
        """`runs` starts of each program, alternating; `before(key)` runs before each start."""
        seconds: dict[str, list[float]] = {program.key: [] for program in PROGRAMS}
        cpu: dict[str, list[float]] = {program.key: [] for program in PROGRAMS}
        for number in range(runs):
            order = PROGRAMS if number % 2 == 0 else PROGRAMS[::-1]
            for program in order:
                if before is not None:
                    before(program.key)
                started = self.start(program)
                seconds[program.key].append(started.seconds)
                cpu[program.key].append(started.cpu_seconds)
            self.progress(
                f"{kind} {number + 1}/{runs}: "
                + ", ".join(f"{TITLES[key]} {values[-1]:.2f} s" for key, values in seconds.items())
            )
        return results.phase(seconds, cpu)

    def run(self, command: str) -> dict[str, Any]:
        """Measure; `command` is how the benchmark was started (for the report)."""
        machine_at_start = machine()  # its load average before the benchmark adds to it
        # the warm-up also makes the home a used one: settings written, first-run guide shown
        warm_up = self.rounds("warm-up", self.warm_ups) if self.warm_ups else None
        warm = self.rounds("warm", self.runs)
        cold_starts = ColdStarts(
            self.scratch / "home", self.mapped, drop_everything=self.drop_caches
        )
        cold = self.rounds("cold", self.runs, before=cold_starts.prepare)
        return {
            "phases": {"warm": warm, "cold": cold},
            "setup": {
                "display": f"{self.display.description}, Qt platform "
                + ", ".join(sorted(self.platforms)),
                "qt": self.qt,
                "python": platform.python_version(),
                "machine": machine_at_start,
                "eviction": cold_starts.description(TITLES),
                "warm_up": warm_up,
            },
            "command": command,
            "date": time.strftime("%Y-%m-%d %H:%M"),
        }


def machine() -> str:
    """CPU, cores, kernel and how busy the machine was: start times depend on all of them."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip() + ", "
                break
    except OSError:
        pass
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return f"{model}{os.cpu_count()} CPUs, {platform.system()} {platform.release()}{load}"
