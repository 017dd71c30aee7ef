"""Benchmark (not a test): 1,000 tracked jobs, squeue output in the client's real format.

    python -m workbench_plugins.hpc.perf                  # 1,000 jobs, 5 polls, prints a table
    python -m workbench_plugins.hpc.perf --jobs 200 --polls 3 --out perf.json

Per poll: the client's `states()` for every tracked id, answered by squeue text in exactly the
format SlurmClient asks for (parsers.SQUEUE_FORMAT), from an in-memory shell that counts the
commands (the point: ONE squeue call per poll), and the pure parse of that text on its own
(target under 1 s). Then the queue view shows those polls on the GUI thread (offscreen unless
QT_QPA_PLATFORM says otherwise) while a 5 ms QTimer records its gaps: the longest gap with 1,000
rows (target 50 ms) next to a baseline measured in the same run, the same refreshes of 10 rows.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from workbench_plugins.hpc.remote import RemoteResult
from workbench_plugins.hpc.slurm.client import SlurmClient
from workbench_plugins.hpc.slurm.jobs import JobRow
from workbench_plugins.hpc.slurm.parsers import SQUEUE_FORMAT, parse_squeue

HOST = "bench"
PARSE_TARGET_S = 1.0
GAP_TARGET_MS = 50.0
BASELINE_ROWS = 10
FIRST_JOB = 41_000
STATES = ("RUNNING", "PENDING", "RUNNING", "COMPLETED", "COMPLETING", "RUNNING", "PENDING")
REASONS = {"PENDING": "Resources", "RUNNING": "None", "COMPLETED": "None", "COMPLETING": "None"}


def _job_fields(index: int, poll: int, rng: random.Random) -> dict[str, str]:
    """squeue's % fields for job `index` at poll `poll`; every 10th job is a task of an array."""
    raw = str(FIRST_JOB + index)
    in_array = index % 10 >= 6  # jobs 6..9 of each ten: tasks 0..3 of one array
    array_id = str(FIRST_JOB + index - (index % 10 - 6)) if in_array else raw
    task = str(index % 10 - 6) if in_array else "N/A"
    state = STATES[(index + poll) % len(STATES)]
    running = state != "PENDING"
    return {
        "i": f"{array_id}_{task}" if in_array else raw,
        "A": raw,
        "F": array_id,
        "K": task,
        "u": f"user{index % 7}",
        "T": state,
        "r": REASONS[state],
        "M": f"{(index * 7 + poll * 30) // 60}:{(index * 7 + poll * 30) % 60:02d}"
        if running
        else "0:00",
        "l": "1:00:00",
        "D": "1",
        "N": f"node{rng.randrange(64):02d}" if running else "",
        "j": f"train-{index}|seed {index % 10}",  # a name with the separator in it
    }


_FIELD = re.compile(r"%(\w)")


def _field_value(fields: dict[str, str], match: re.Match[str]) -> str:
    return fields[match.group(1)]


def squeue_text(jobs: int, poll: int = 0, seed: int = 0) -> str:
    """`squeue -h -o SQUEUE_FORMAT` output for `jobs` jobs, in that format's field order."""
    rng = random.Random(seed + poll)
    codes = _FIELD.findall(SQUEUE_FORMAT)
    lines = []
    for index in range(jobs):
        fields = _job_fields(index, poll, rng)
        unknown = [code for code in codes if code not in fields]
        if unknown:
            raise KeyError(f"SQUEUE_FORMAT asks for %{unknown[0]}: teach perf.py that field")
        lines.append(_FIELD.sub(partial(_field_value, fields), SQUEUE_FORMAT))
    return "\n".join(lines) + "\n"


@dataclass
class RecordedSqueue:
    """A RemoteShell answering squeue with prepared text, counting every command it is asked."""

    text: str
    host: str = HOST
    commands: Counter[str] = field(default_factory=Counter)

    def run(
        self, argv: Sequence[str], *, timeout: float = 60.0, stdin: str | None = None
    ) -> RemoteResult:
        self.commands[argv[0]] += 1
        stdout = self.text if argv[0] == "squeue" else ""
        return RemoteResult(self.host, tuple(argv), 0, stdout, "")

    def home(self) -> str:
        return "/home/bench"

    def read_text(self, path: str, offset: int = 0, limit: int = 1_000_000) -> str:
        return ""

    def write_text(self, path: str, text: str, mode: int = 0o644) -> None:
        raise RuntimeError("the benchmark writes nothing")

    def download(self, remote: str, local: Path) -> Path:
        raise RuntimeError("the benchmark downloads nothing")

    def upload(self, local: Path, remote: str) -> None:
        raise RuntimeError("the benchmark uploads nothing")


def tracked_ids(rows: Sequence[JobRow]) -> list[str]:
    """The ids a tracker follows: each job, and each array once by its id."""
    return sorted({row.base_id for row in rows})


def measure_polls(jobs: int, polls: int) -> tuple[dict[str, float], list[list[JobRow]]]:
    parse_s: list[float] = []
    states_s: list[float] = []
    squeue_calls: list[int] = []
    other_calls: list[int] = []
    shown: list[list[JobRow]] = []
    for poll in range(polls):
        text = squeue_text(jobs, poll)
        started = time.perf_counter()
        rows = parse_squeue(text, HOST)
        parse_s.append(time.perf_counter() - started)
        shell = RecordedSqueue(text)
        started = time.perf_counter()
        found = SlurmClient(shell).states(tracked_ids(rows))
        states_s.append(time.perf_counter() - started)
        squeue_calls.append(shell.commands["squeue"])
        other_calls.append(sum(shell.commands.values()) - shell.commands["squeue"])
        shown.append(list(found.values()))
    figures = {
        "jobs": float(jobs),
        "rows_parsed": float(len(shown[-1])),
        "squeue_calls_per_poll": float(max(squeue_calls)),
        "other_calls_per_poll": float(max(other_calls)),
        "parse_max_ms": max(parse_s) * 1000,
        "parse_mean_ms": statistics.fmean(parse_s) * 1000,
        "states_poll_max_ms": max(states_s) * 1000,
    }
    return figures, shown


def run(jobs: int = 1000, polls: int = 5) -> dict[str, Any]:
    from workbench_plugins.hpc.views.refresh_bench import measure_refresh

    figures, shown = measure_polls(jobs, polls)
    refresh = measure_refresh(shown)
    baseline = measure_refresh([rows[:BASELINE_ROWS] for rows in shown])
    return {
        **figures,
        "parse_target_ms": PARSE_TARGET_S * 1000,
        "parse_ok": figures["parse_max_ms"] < PARSE_TARGET_S * 1000,
        "refresh_rows": refresh["rows"],
        "refresh_gap_max_ms": refresh["gap_max_ms"],
        "refresh_call_max_ms": refresh["refresh_call_max_ms"],
        "baseline_rows": baseline["rows"],
        "baseline_gap_max_ms": baseline["gap_max_ms"],
        "baseline_call_max_ms": baseline["refresh_call_max_ms"],
        "gap_target_ms": GAP_TARGET_MS,
        "gap_ok": refresh["gap_max_ms"] < GAP_TARGET_MS,
        "polls": polls,
    }


def table(result: dict[str, Any]) -> str:
    width = max(len(key) for key in result)
    lines = []
    for key, value in result.items():
        shown = f"{value:.2f}" if isinstance(value, float) else str(value)
        lines.append(f"{key:<{width}}  {shown}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench_plugins.hpc.perf")
    parser.add_argument("--jobs", type=int, default=1000, help="tracked jobs (default 1000)")
    parser.add_argument("--polls", type=int, default=5, help="polls to time (default 5)")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    options = parser.parse_args(argv)
    if options.jobs < 1 or options.polls < 1:
        parser.error("--jobs and --polls must be at least 1")
    result = run(options.jobs, options.polls)
    print(table(result))
    if options.out:
        options.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
