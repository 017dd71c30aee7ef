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

from workbench.bench.runner import BenchError, PlannedCell, load_suites, plan, run_bench
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
        cells = plan(
            suites,
            args.suites,
            args.models or ["reference"],
            args.seeds,
            args.examples,
            args.patterns,
        )
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
    budgeted = [cell for cell in cells if cell.budget is not None]
    if budgeted:
        console.print(how_to_measure_a_model(budgeted[0], context.settings.model))
    sys.stdout.flush()
    return 1 if outcome.errors else 0


def how_to_measure_a_model(cell: PlannedCell, configured: str) -> str:
    """The closing line of the smoke selection: its agent cell only shows the loop runs."""
    assert cell.budget is not None
    model = configured if configured.startswith(("ollama:", "openai:")) else "ollama:qwen3:4b"
    return (
        f"The agent cell ({cell.model}) ran under a smoke budget of {cell.budget.describe()}; "
        f"it shows that the loop runs, not how good the model is. To measure a model, run a "
        f"whole suite without budget: workbench --headless bench {cell.suite} --model {model}"
    )
