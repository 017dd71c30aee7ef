"""Run one checked command: no shell, its own process group, a timeout, a cap on its output.

The process starts in a new session (its own process group), so a timeout or a Stop ends every
process it started, not only the first. Each output stream keeps its first `max_output_bytes`
and counts the rest, so a chatty program can neither fill memory nor block on a full pipe.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import IO

from workbench_plugins.shell.policy import Prepared, git_environment, without_git_variables

POLL_S = 0.05
GRACE_S = 2.0  # between SIGTERM and SIGKILL
CHUNK = 65536


@dataclass(frozen=True)
class Finished:
    exit_code: int | None  # None: it did not end by itself (timeout or stop)
    duration_s: float
    stdout: str
    stderr: str
    stdout_bytes: int  # as produced, before the cap
    stderr_bytes: int
    timed_out: bool
    stopped: bool


class _CappedReader(threading.Thread):
    """Drains one pipe to its end, keeping the first `cap` bytes."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.kept = bytearray()
        self.total = 0

    def run(self) -> None:
        with self.stream:
            while chunk := self.stream.read1(CHUNK):  # type: ignore[attr-defined]
                self.total += len(chunk)
                room = self.cap - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]

    def text(self) -> str:
        return self.kept.decode("utf-8", errors="replace")


def child_environment() -> dict[str, str]:
    """The workbench's environment, made safer for the programs allowed by default: Python never
    imports from the working folder first; git runs no program a repository's configuration
    names (hooks, fsmonitor, pagers, signature programs: `policy.git_environment`)."""
    env = without_git_variables()
    env.update(PYTHONSAFEPATH="1", PYTHONDONTWRITEBYTECODE="1", PAGER="cat")
    env.update(git_environment())
    return env


def run_prepared(prepared: Prepared, stop: threading.Event) -> Finished:
    """Run to the end, the timeout, or `stop` being set (then the whole group is ended)."""
    started = time.monotonic()
    process = subprocess.Popen(  # a checked argv, never a shell
        list(prepared.argv),
        executable=prepared.executable,
        cwd=prepared.cwd,
        env=child_environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        shell=False,
        start_new_session=True,
    )
    readers = [_CappedReader(s, prepared.max_output_bytes) for s in _pipes(process)]
    for reader in readers:
        reader.start()
    timed_out = stopped = False
    deadline = started + prepared.timeout_s
    while process.poll() is None:
        if stop.wait(POLL_S):
            stopped = True
        elif time.monotonic() >= deadline:
            timed_out = True
        if stopped or timed_out:
            end_group(process)
            break
    for reader in readers:
        reader.join(GRACE_S)
    if any(reader.is_alive() for reader in readers):  # a child left behind holds the pipes
        _signal_group(process.pid, signal.SIGKILL)
        for reader in readers:
            reader.join(GRACE_S)
    out, err = readers
    return Finished(
        exit_code=None if stopped or timed_out else process.returncode,
        duration_s=time.monotonic() - started,
        stdout=out.text(),
        stderr=err.text(),
        stdout_bytes=out.total,
        stderr_bytes=err.total,
        timed_out=timed_out,
        stopped=stopped,
    )


def _pipes(process: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    if process.stdout is None or process.stderr is None:
        raise RuntimeError("the command's output pipes were not opened")
    return process.stdout, process.stderr


def end_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the whole process group, SIGKILL if it is still there after a grace period."""
    _signal_group(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(GRACE_S)
    _signal_group(process.pid, signal.SIGKILL)  # also any child that outlived its parent
    process.wait()


def _signal_group(group: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
        os.killpg(group, sig)
