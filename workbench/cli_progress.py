"""Headless progress: background jobs shown as bars on stderr while a `tool` command runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from workbench.core.events import EventBus, JobFinished, JobProgress, JobStarted


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

    def started(event: JobStarted) -> None:
        bars[event.job_id] = progress.add_task(event.title, total=1.0, note="")

    def advanced(event: JobProgress) -> None:
        if event.job_id in bars:
            progress.update(bars[event.job_id], completed=event.fraction, note=event.message)

    def finished(event: JobFinished) -> None:
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
    with progress:
        try:
            yield
        finally:
            for unsubscribe in unsubscribers:
                unsubscribe()
