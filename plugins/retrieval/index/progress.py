"""A headless progress bar (rich) for folder imports: `with rich_progress() as report: ...`."""

from __future__ import annotations

from collections.abc import Iterator
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
