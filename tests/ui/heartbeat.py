"""A heartbeat on the GUI thread: a 10 ms timer whose late ticks are the window's freezes.

Each tick records the wall time and the GUI thread's CPU time; a gap over the limit is a freeze,
named by the step the test said it was in (`step`). The test's own work on the GUI thread (taking
a screenshot) is left out with `paused()`.

A gap counts what the window did or waited for (its work, a lock, the GIL), not the time the
machine ran other processes (on a shared 2-core box under load that alone is 100+ ms): Linux
counts, per thread, the time it was ready to run but waited for a CPU (/proc/self/task/*/
schedstat, "run queue"). `Gap.frozen_s` leaves out the GUI thread's wait and the longest wait of
another thread of this process, which may have held the GIL the GUI thread waited for. Where
the kernel does not say, nothing is left out.

While a tick is late, a watchdog thread notes what every thread is doing (`stalls`): the place a
freeze comes from, in the failure message.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer

TICK_MS = 10
WATCH_AFTER_S = 0.08  # a tick this late: note the threads' stacks
TASKS = Path("/proc/self/task")


def run_queue_seconds() -> dict[int, float]:
    """Seconds each thread of this process has waited, runnable, for a CPU, by native id
    (empty where the kernel does not say)."""
    waits = {}
    try:
        for task in TASKS.iterdir():
            try:
                waits[int(task.name)] = int((task / "schedstat").read_text().split()[1]) / 1e9
            except (OSError, ValueError, IndexError):
                continue  # the thread ended meanwhile
    except OSError:
        return {}
    return waits


@dataclass(frozen=True)
class Gap:
    step: str
    seconds: float  # wall time beyond the tick
    cpu_seconds: float  # the GUI thread's CPU time during the gap
    run_queue_seconds: float  # the GUI thread's wait for a CPU (a busy machine) during the gap
    others_run_queue_seconds: float  # the longest such wait of another thread of the process

    @property
    def frozen_s(self) -> float:
        """The gap without the machine's share: the window's own work or waiting."""
        machine = self.run_queue_seconds + self.others_run_queue_seconds
        return max(0.0, self.seconds - machine)

    def __str__(self) -> str:
        return (
            f"{self.frozen_s * 1000:.0f} ms in {self.step} (gap {self.seconds * 1000:.0f} ms: "
            f"{self.cpu_seconds * 1000:.0f} ms on the CPU, "
            f"{self.run_queue_seconds * 1000:.0f} ms waiting for one, another thread "
            f"{self.others_run_queue_seconds * 1000:.0f} ms)"
        )


class Heartbeat(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.step = "start"
        self.gaps: list[Gap] = []
        self._last: tuple[float, float, dict[int, float]] | None = None
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self.ticks = 0
        # step: {the late tick's time: (how late, the threads' stacks when it became late)}
        self._episodes: dict[str, dict[float, tuple[float, str]]] = {}
        self._tick_at = time.perf_counter()
        self._gui_thread = threading.get_ident()
        self._gui_native = threading.get_native_id()
        self._watching = threading.Event()
        self._watcher: threading.Thread | None = None

    def start(self) -> None:
        self._last = None
        self._tick_at = time.perf_counter()
        self._timer.start()
        if self._watcher is None:
            self._watching.set()
            self._watcher = threading.Thread(target=self._watch, name="heartbeat", daemon=True)
            self._watcher.start()

    def stop(self) -> None:
        self._timer.stop()
        self._last = None
        self._watching.clear()
        if self._watcher is not None:
            self._watcher.join()
            self._watcher = None

    def _watch(self) -> None:
        while self._watching.is_set():
            time.sleep(0.02)
            tick_at = self._tick_at
            late = time.perf_counter() - tick_at
            if self._watching.is_set() and late > WATCH_AFTER_S:
                episodes = self._episodes.setdefault(self.step, {})
                # the same stall grows; its stacks stay those of when the GUI thread became late
                stacks = episodes[tick_at][1] if tick_at in episodes else _stacks(self._gui_thread)
                episodes[tick_at] = (late, stacks)

    @property
    def stalls(self) -> dict[str, str]:
        """Per step, where every thread was in its three longest stalls (longest first): a
        loaded machine's stall may outlast the window's own, so one is not enough."""
        return {
            step: "\n".join(
                f"{late * 1000:.0f} ms without a tick:\n{stacks}"
                for late, stacks in sorted(episodes.values(), key=lambda e: -e[0])[:3]
            )
            for step, episodes in self._episodes.items()
        }

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.stop()
        try:
            yield
        finally:
            self.start()

    def _tick(self) -> None:
        now = (time.perf_counter(), time.thread_time(), run_queue_seconds())
        if self._last is not None:
            wall, cpu = now[0] - self._last[0], now[1] - self._last[1]
            before, after = self._last[2], now[2]
            waited = {tid: after[tid] - before.get(tid, after[tid]) for tid in after}
            own = waited.pop(self._gui_native, 0.0)
            others = max(waited.values(), default=0.0)
            self.gaps.append(Gap(self.step, wall - TICK_MS / 1000, cpu, own, others))
        self._last = now
        self._tick_at = now[0]
        self.ticks += 1

    def longest(self, count: int = 5) -> list[Gap]:
        return sorted(self.gaps, key=lambda gap: gap.frozen_s, reverse=True)[:count]

    def over(self, limit_s: float) -> list[Gap]:
        """The freezes: gaps over `limit_s` once the machine's share is left out."""
        return [gap for gap in self.gaps if gap.frozen_s > limit_s]


def _stacks(gui_thread: int) -> str:
    """Every thread's innermost frames, the GUI thread's first."""
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    frames = sys._current_frames()
    lines = []
    for ident in sorted(frames, key=lambda i: i != gui_thread):
        if ident == threading.get_ident():
            continue
        stack = traceback.extract_stack(frames[ident])[-12:]
        where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(stack))
        lines.append(f"  [{names.get(ident, ident)}] {where}")
    return "\n".join(lines)
