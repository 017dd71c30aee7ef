"""Headless progress: background jobs shown as bars on stderr while a `tool` command runs.

Ctrl+C while jobs run asks them to stop, as the jobs bar's Cancel does (JobCancelRequested): a
tool that listens ends cleanly with what it did; a second Ctrl+C interrupts at once."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from workbench.core.events import (
    EventBus,
    JobCancelRequested,
    JobFinished,
    JobProgress,
    JobStarted,
)


@contextmanager
def job_progress(bus: EventBus) -> Iterator[None]:
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[note]}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    bars: dict[str, TaskID] = {}
    running: set[str] = set()  # the jobs a Ctrl+C asks to stop

    def started(event: JobStarted) -> None:
        bars[event.job_id] = progress.add_task(event.title, total=1.0, note="")
        running.add(event.job_id)

    def advanced(event: JobProgress) -> None:
        if event.job_id in bars:
            progress.update(bars[event.job_id], completed=event.fraction, note=event.message)

    def finished(event: JobFinished) -> None:
        running.discard(event.job_id)
        if event.job_id in bars:
            progress.update(
                bars[event.job_id],
                note=event.status,
                completed=1.0 if event.status == "done" else None,
            )

    handlers: list[tuple[type, Callable]] = [
        (JobStarted, started),
        (JobProgress, advanced),
        (JobFinished, finished),
    ]
    unsubscribers = [bus.subscribe(kind, handler) for kind, handler in handlers]
    with progress, _interrupt_cancels(bus, running, progress.console):
        try:
            yield
        finally:
            for unsubscribe in unsubscribers:
                unsubscribe()


@contextmanager
def _interrupt_cancels(bus: EventBus, running: set[str], console: Console) -> Iterator[None]:
    """The first Ctrl+C asks the jobs shown to stop; the next one (or one with no job shown)
    raises KeyboardInterrupt as usual."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    asked: list[str] = []

    def interrupted(number: int, frame: Any) -> None:
        if asked or not running:
            raise KeyboardInterrupt
        asked.extend(list(running))  # a copy: the tool thread changes the set
        console.print("Cancelling (Ctrl+C again stops at once)...")

        def ask() -> None:  # off the signal handler: subscribers run as on any thread
            for job_id in asked:
                bus.publish(JobCancelRequested(job_id=job_id))

        threading.Thread(target=ask, name="cli-cancel", daemon=True).start()

    previous = signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
