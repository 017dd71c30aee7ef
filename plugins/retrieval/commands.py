"""Headless indexing with a progress bar: `workbench --headless retrieval add PATH...` (or
`python -m workbench_plugins.retrieval.commands PATH...`).

Adds files or folders to the index of the workspace, with the settings' size limit. Ctrl+C
stops cleanly at the next step: the file being read is left as the index had it, the files done
before stay, and running the same command again goes on where it stopped.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from workbench.core.plugins import PluginCommand
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index.adding import (
    Chunking,
    IndexingCancelled,
    Watch,
    add_file,
    add_folder,
)
from workbench_plugins.retrieval.index.database import DocumentIndex
from workbench_plugins.retrieval.index.loaders import DocumentError
from workbench_plugins.retrieval.index.progress import rich_progress, step_lines

CANCELLED_EXIT = 130  # what a shell reports for a command stopped by Ctrl+C


def index_paths(
    workspace: Path,
    paths: list[Path],
    console: Console,
    settings: RetrievalSettings | None = None,
    cancel: threading.Event | None = None,
) -> int:
    """Index `paths`; returns how many files failed. IndexingCancelled when `cancel` is set."""
    settings = settings or RetrievalSettings()
    chunking = Chunking(settings.chunk_words, settings.overlap_words)
    never = threading.Event()
    watch = Watch(step_lines(console), (cancel or never).is_set)
    failed = 0
    with DocumentIndex.of_workspace(workspace) as index:
        for path in paths:
            if path.is_dir():
                with rich_progress(f"Indexing {path.name}", console) as report:
                    outcome = add_folder(
                        index,
                        path,
                        chunking=chunking,
                        progress=report,
                        max_bytes=settings.max_bytes,
                        watch=watch,
                    )
                for file, why in outcome.failed:
                    console.print(f"[red]failed[/red] {file}: {why}")
                failed += len(outcome.failed)
                if outcome.cancelled is not None:
                    raise IndexingCancelled(outcome.cancelled)
                continue
            try:
                added = add_file(
                    index, path, chunking=chunking, max_bytes=settings.max_bytes, watch=watch
                )
                console.print(f"{added.status} {path}")
            except DocumentError as error:
                console.print(f"[red]failed[/red] {error.message} {error.hint}")
                failed += 1
        console.print(f"{len(index.documents())} documents in {index.database}")
    return failed


@contextmanager
def interrupt_cancels(cancel: threading.Event) -> Iterator[None]:
    """Ctrl+C sets `cancel` (the work stops at its next step) instead of raising wherever the
    work happens to be; a second Ctrl+C raises KeyboardInterrupt, which the caller ends cleanly
    too (an open transaction rolls back)."""
    previous = signal.getsignal(signal.SIGINT)

    def interrupted(number: int, frame: Any) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()

    in_main = threading.current_thread() is threading.main_thread()
    if in_main:
        signal.signal(signal.SIGINT, interrupted)
    try:
        yield
    finally:
        if in_main:
            signal.signal(signal.SIGINT, previous)


def run_add(workspace: Path, paths: list[Path], settings: RetrievalSettings) -> int:
    console = Console(stderr=True)
    cancel = threading.Event()
    try:
        with interrupt_cancels(cancel):
            failed = index_paths(workspace, paths, console, settings, cancel)
    except (IndexingCancelled, KeyboardInterrupt) as stopped:
        where = f" while reading {stopped.file}" if isinstance(stopped, IndexingCancelled) else ""
        console.print(
            f"Cancelled{where}: that file is as the index had it before; the files done before "
            "it stay. Run the same command again to go on."
        )
        return CANCELLED_EXIT
    return 1 if failed else 0


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")


def run_add_command(app: Any, args: argparse.Namespace) -> int:
    settings = app.settings.plugin("retrieval", RetrievalSettings)
    if settings.read_only:
        print("The document index is read-only here (read_only in [plugins.retrieval]).")
        return 2
    return run_add(Path(app.store.folder), args.paths, settings)


def commands() -> list[PluginCommand]:
    return [
        PluginCommand(
            "add",
            "add files or folders to the workspace's document index, with a progress bar; "
            "Ctrl+C stops cleanly and the same command goes on later",
            _add_arguments,
            run_add_command,
        )
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Add documents to the workspace's index.")
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--workspace", type=Path, help="default: the workspace in settings")
    options = parser.parse_args(argv)
    from workbench.core.context import AppContext

    app = AppContext.open(workspace=options.workspace)
    try:
        settings = app.settings.plugin("retrieval", RetrievalSettings)
        workspace = Path(app.store.folder)
    finally:
        app.close()
    return run_add(workspace, options.paths, settings)


if __name__ == "__main__":
    sys.exit(main())
