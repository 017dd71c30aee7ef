"""The `bench` command: list, plan, run with a progress bar, report."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from workbench.bench.runner import BenchError, load_suites, plan, run_bench
from workbench.core.context import AppContext


def bench_command(context: AppContext, args: argparse.Namespace) -> int:
    console = Console(stderr=True, soft_wrap=True)  # start-up notices were logged already
    suites = load_suites(context)
    for failure in context.plugins.failures:
        if failure.stage == "suites":
            console.print(f"[yellow]warning:[/] {failure.explain()}")
    if args.list:
        table = Table("suite", "tasks", "smoke", "description")
        for name, suite in sorted(suites.items()):
            table.add_row(
                name, str(len(suite.tasks())), str(len(suite.smoke_tasks())), suite.description
            )
        Console().print(table)
        return 0
    try:
        if args.jobs < 1:
            raise BenchError("--jobs must be at least 1.")
        cells = plan(suites, args.suites, args.models or ["reference"], args.seeds, args.examples)
    except BenchError as error:
        console.print(f"[red]error:[/] {error}")
        return 2
    if not cells:
        console.print("[red]error:[/] no benchmark cells to run: no suite is installed.")
        return 2
    with Progress(
        TextColumn("[bold]bench"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("cells"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
    ) as progress:
        bar = progress.add_task("cells", total=len(cells))
        outcome = run_bench(
            context,
            suites,
            cells,
            args.out,
            jobs=args.jobs,
            on_cell=lambda record: progress.advance(bar),
        )
        progress.update(bar, completed=len(cells))
    table = Table(
        "suite",
        "problem",
        "style",
        "condition",
        "model",
        "cells",
        "errors",
        "score",
        "mean",
        title=f"{args.out}/summary.json",
    )
    for row in outcome.summary:
        group = [
            row["suite"],
            row["problem"],
            row["style"],
            row["condition"],
            row["model"],
            str(row["cells"]),
            str(row["errors"]),
        ]
        for name, value in row["mean"].items() or [("", None)]:
            table.add_row(*group, name, "" if value is None else f"{value:.4g}")
            group = [""] * len(group)
    Console(width=max(Console().width, 120)).print(table)
    console.print(
        f"{outcome.planned} cells: {outcome.skipped} already done, {outcome.computed} computed, "
        f"{len(outcome.errors)} harness error(s). Results in {outcome.folder}."
    )
    for report in outcome.reports:
        console.print(f"report: {report}")
    for error in outcome.errors:
        console.print(f"[red]harness error:[/] {error}")
    sys.stdout.flush()
    return 1 if outcome.errors else 0
