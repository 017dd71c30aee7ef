"""The `bench` command: list, plan, run with a progress bar, report."""

from __future__ import annotations

import argparse
import os
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

from workbench.bench.overview import format_scores
from workbench.bench.runner import (
    BenchError,
    BenchOutcome,
    ExecutorError,
    PlannedCell,
    load_suites,
    plan,
    run_bench,
)
from workbench.bench.suite import Suite
from workbench.core.context import AppContext


def bench_command(context: AppContext, args: argparse.Namespace) -> int:
    console = Console(stderr=True, soft_wrap=True)  # start-up notices were logged already
    suites = load_suites(context)
    for failure in context.plugins.failures:
        if failure.stage == "suites":
            console.print(f"[yellow]warning:[/] {failure.explain()}")
    if args.list:
        Console().print(suites_table(suites))
        return 0
    try:
        cells = plan_from_arguments(suites, args)
    except BenchError as error:
        console.print(f"[red]error:[/] {error}")
        return 2
    if not cells:
        console.print("[red]error:[/] no benchmark cells to run: no suite is installed.")
        return 2
    try:
        outcome = run_with_progress(context, suites, cells, args, console)
    except ExecutorError as error:
        console.print(f"[red]error:[/] {error}")
        return 2
    except KeyboardInterrupt:
        console.print(
            f"Interrupted: the results so far are in {args.out.resolve()}; run the same command "
            "again to resume."
        )
        return 130
    Console(width=max(Console().width, 120)).print(overview_table(outcome))
    console.print(
        f"{outcome.planned} cells: {outcome.skipped} already done, {outcome.computed} computed, "
        f"{len(outcome.errors)} harness error(s). Results in {outcome.folder}."
    )
    if outcome.index is not None:
        console.print(f"Everything in one page: {outcome.index}")
    for harness_error in outcome.errors:
        console.print(f"[red]harness error:[/] {harness_error}")
    advice = how_to_measure_a_model(cells, context.settings.model)
    if advice is not None:
        console.print(advice)
    sys.stdout.flush()
    return 1 if outcome.errors else 0


def suites_table(suites: dict[str, Suite]) -> Table:
    """`bench --list`: every installed suite with its task counts."""
    table = Table("suite", "tasks", "smoke", "description")
    for name, suite in sorted(suites.items()):
        table.add_row(
            name, str(len(suite.tasks())), str(len(suite.smoke_tasks())), suite.description
        )
    return table


def plan_from_arguments(suites: dict[str, Suite], args: argparse.Namespace) -> list[PlannedCell]:
    """The cells the command line asks for; BenchError when it asks for something impossible."""
    if args.jobs < 1:
        raise BenchError("--jobs must be at least 1.")
    return plan(
        suites,
        args.suites,
        args.models or ["reference"],
        args.seeds,
        args.examples,
        args.patterns,
        judge=getattr(args, "judge", "") or "",
        preset=getattr(args, "preset", "") or "",
    )


def run_with_progress(
    context: AppContext,
    suites: dict[str, Suite],
    cells: list[PlannedCell],
    args: argparse.Namespace,
    console: Console,
) -> BenchOutcome:
    """Run the cells with a progress bar of finished cells on `console`."""
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
            executor=getattr(args, "executor", "local"),
            options=executor_options(args),
            notify=lambda text: progress.console.print(text),
        )
        progress.update(bar, completed=len(cells))
    return outcome


def executor_options(args: argparse.Namespace) -> dict[str, str]:
    """The executor's own options the command line gave (host, partition, remote python)."""
    given = {
        "host": getattr(args, "host", ""),
        "partition": getattr(args, "partition", ""),
        "remote_python": getattr(args, "remote_python", ""),
    }
    return {name: value for name, value in given.items() if value}


def overview_table(outcome: BenchOutcome) -> Table:
    """One row per suite and model: cells, harness errors, headline scores, report. The full
    means are in summary.json (named in the title)."""
    table = Table(title=f"{outcome.folder}/summary.json has every mean")
    for column in ("suite", "model", "cells", "errors", "headline scores", "report"):
        table.add_column(column, overflow="fold")
    for line in outcome.lines:
        model = f"{line.model} (judge {line.judge})" if line.judge else line.model
        report = os.path.relpath(line.report, outcome.folder) if line.report else "-"
        table.add_row(
            line.suite,
            model,
            str(line.cells),
            str(line.errors),
            format_scores(line.headline),
            report,
        )
    return table


def how_to_measure_a_model(cells: list[PlannedCell], configured: str) -> str | None:
    """The closing line of the smoke selection: its agent cell only shows the loop runs. None
    when no cell ran under a budget."""
    budgeted = next(((cell, cell.budget) for cell in cells if cell.budget is not None), None)
    if budgeted is None:
        return None
    cell, budget = budgeted
    model = configured if configured.startswith(("ollama:", "openai:")) else "ollama:qwen3:4b"
    return (
        f"The agent cell ({cell.model}) ran under a smoke budget of {budget.describe()}; "
        f"it shows that the loop runs, not how good the model is. To measure a model, run a "
        f"whole suite without budget: workbench --headless bench {cell.suite} --model {model}"
    )
