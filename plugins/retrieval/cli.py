"""Headless indexing with a progress bar: `python -m workbench_plugins.retrieval.cli PATH...`.

Adds files or folders to the index of the workspace in settings (or --workspace); a folder
import stopped with Ctrl-C resumes where it stopped when run again.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from workbench_plugins.retrieval.index.adding import add_file, add_folder
from workbench_plugins.retrieval.index.database import DocumentIndex
from workbench_plugins.retrieval.index.loaders import DocumentError
from workbench_plugins.retrieval.index.progress import rich_progress


def index_paths(workspace: Path, paths: list[Path], console: Console) -> int:
    """Index `paths`; returns how many files failed."""
    failed = 0
    with DocumentIndex.of_workspace(workspace) as index:
        for path in paths:
            if path.is_dir():
                with rich_progress(f"Indexing {path.name}", console) as report:
                    outcome = add_folder(index, path, progress=report)
                for file, why in outcome.failed:
                    console.print(f"[red]failed[/red] {file}: {why}")
                failed += len(outcome.failed)
                continue
            try:
                console.print(f"{add_file(index, path).status} {path}")
            except DocumentError as error:
                console.print(f"[red]failed[/red] {error.message} {error.hint}")
                failed += 1
        console.print(f"{len(index.documents())} documents in {index.database}")
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Add documents to the workspace's index.")
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--workspace", type=Path, help="default: the workspace in settings")
    options = parser.parse_args(argv)
    workspace = options.workspace
    if workspace is None:
        from workbench.core.context import AppContext

        app = AppContext.open()
        workspace = app.store.folder
        app.close()
    return 1 if index_paths(workspace, options.paths, Console()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
