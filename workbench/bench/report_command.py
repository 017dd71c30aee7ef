"""`python -m <suite's report module> FOLDER`: write a suite's report again from its results."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from workbench.bench.results import CellRecord, read_cells

WriteReport = Callable[[Path, list[CellRecord]], Path]


def rewrite_report(suite: str, write_report: WriteReport, argv: list[str] | None = None) -> int:
    """Read the cells of a `bench` results folder and hand them to the suite's `write_report`;
    prints the report's path."""
    parser = argparse.ArgumentParser(description=f"Write the {suite} suite's report again.")
    parser.add_argument("folder", type=Path, help=f"a `bench {suite}` results folder")
    args = parser.parse_args(argv)
    print(write_report(args.folder, list(read_cells(args.folder).values())))
    return 0
