"""Headless progress: a bar (rich) for folder imports (`with rich_progress() as report: ...`),
and a line per tenth of the work of `step_lines`, which a pipe or a log can follow too."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from workbench_plugins.retrieval.index.adding import Progress as ProgressCallback


@contextmanager
def rich_progress(
    title: str = "Indexing", console: Console | None = None
) -> Iterator[ProgressCallback]:
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[file]}"),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(title, total=None, file="")

        def report(done: int, total: int, path: Path) -> None:
            bar.update(task, completed=done, total=total, file=path.name)

        yield report


def step_lines(console: Console, every: float = 0.1) -> Callable[[float, str], None]:
    """A `Watch` report printing the step each time the work advanced by `every` (a new file
    starting over prints at once)."""
    last = [-1.0]

    def report(fraction: float, step: str) -> None:
        if fraction - last[0] >= every or fraction < last[0]:
            last[0] = fraction
            console.print(f"{fraction:4.0%} {step}", highlight=False)

    return report
