"""Plan cells, skip the finished ones, run the rest with an executor (this machine's, or one a
plugin contributes), record each."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path

from workbench.bench.executors import (
    LOCAL,
    ExecutionRequest,
    ExecutorError,
    PlannedCell,
    execute_cell,
    find_executor,
    load_suites,
)
from workbench.bench.index_page import write_index
from workbench.bench.overview import SuiteLine, suite_lines
from workbench.bench.results import (
    CellRecord,
    SummaryRow,
    append_cell,
    bench_workspace,
    read_cells,
    write_summary,
)
from workbench.bench.suite import AgentBudget, BenchTask, Suite
from workbench.core.context import AppContext
from workbench.core.store import Store

# re-exported: callers plan and run cells through the runner
__all__ = [
    "BenchError",
    "BenchOutcome",
    "ExecutorError",
    "PlannedCell",
    "execute_cell",
    "load_suites",
    "plan",
]

# The default selection's one agent cell: enough for a hand-off and a few tool calls, and about a
# minute whatever the model (the embedded SmolLM2 takes ~20 s a reply on a quiet 2-core machine,
# minutes on a busy one, so the clock also cuts its reply short; a tool call under way finishes).
SMOKE_AGENT_BUDGET = AgentBudget(model_calls=6, tokens=24_000, seconds=60.0)


class BenchError(ValueError):
    """The request cannot be run as asked (unknown suite, bad option); nothing was started."""


@dataclass
class BenchOutcome:
    folder: Path
    planned: int
    skipped: int
    computed: int
    errors: list[str] = field(default_factory=list)
    reports: list[Path] = field(default_factory=list)
    summary: list[SummaryRow] = field(default_factory=list)
    report_of: dict[str, Path] = field(default_factory=dict)  # each suite's report
    lines: list[SuiteLine] = field(default_factory=list)  # the one-line-per-suite overview
    index: Path | None = None  # DIR/index.html


def plan(
    suites: dict[str, Suite],
    names: list[str],
    models: list[str],
    seeds: list[int],
    examples: int | None = None,
    patterns: Iterable[str] = (),
    judge: str = "",
    preset: str = "",
) -> list[PlannedCell]:
    """Every (task, model, seed) of the named suites (all suites when only `patterns` narrow
    the tasks); naming neither, the smoke selection (see `smoke_plan`). `judge` (`--judge`)
    goes to the suites that judge (`Suite.judge_for`); asking for one where none judges is an
    error, not silently ignored."""
    unknown = [name for name in names if name not in suites]
    if unknown:
        raise BenchError(
            f"Unknown suite(s): {', '.join(unknown)}. Installed: {', '.join(sorted(suites))}. "
            "See `workbench --headless bench --list`."
        )
    if examples is not None and examples < 1:
        raise BenchError("--examples must be at least 1.")
    wanted = split_patterns(patterns)
    if not names and not wanted:
        smoke = with_judges(suites, smoke_plan(suites, models, seeds, examples), judge)
        return with_preset(suites, smoke, preset)
    cells, unmatched = [], set(wanted)
    for name in names or sorted(suites):
        tasks = suites[name].tasks()
        if wanted:
            hits = {task.id: {p for p in wanted if matches(task, p)} for task in tasks}
            tasks = [task for task in tasks if hits[task.id]]
            unmatched -= set().union(*hits.values())
        for task in per_group(tasks, examples):
            cells += [PlannedCell(name, task, model, seed) for model in models for seed in seeds]
    if unmatched:
        raise BenchError(
            f"--tasks {', '.join(sorted(unmatched))} matches no task id or style of "
            f"{', '.join(names or sorted(suites))}. See `workbench --headless bench --list`."
        )
    return with_preset(suites, with_judges(suites, cells, judge), preset)


def with_preset(
    suites: dict[str, Suite], cells: list[PlannedCell], preset: str
) -> list[PlannedCell]:
    """`--preset`: each cell of a suite offering it runs with it; BenchError when none does."""
    if not preset:
        return cells
    offering = {name for name, suite in suites.items() if preset in suite.presets}
    if cells and not any(cell.suite in offering for cell in cells):
        known = sorted({f"{name}: {p}" for name, s in suites.items() for p in s.presets})
        raise BenchError(
            f"--preset {preset}: none of the planned suites offers it (presets: "
            f"{', '.join(known) or 'none'})."
        )
    return [replace(cell, preset=preset) if cell.suite in offering else cell for cell in cells]


def with_judges(
    suites: dict[str, Suite], cells: list[PlannedCell], judge: str
) -> list[PlannedCell]:
    """Each cell with the judge its suite grades it with; BenchError when `--judge` was given
    and no planned suite uses a judge."""
    judged = [
        replace(cell, judge=suites[cell.suite].judge_for(cell.model, judge)) for cell in cells
    ]
    if judge and cells and not any(cell.judge for cell in judged):
        planned = ", ".join(sorted({cell.suite for cell in cells}))
        raise BenchError(
            f"--judge {judge}: none of the planned suites ({planned}) uses a judge model; "
            "leave --judge out, or name a suite that judges (e.g. engjudge)."
        )
    return judged


def smoke_plan(
    suites: dict[str, Suite], models: list[str], seeds: list[int], examples: int | None
) -> list[PlannedCell]:
    """Every suite's smoke tasks with the reference (they check the harness end to end), then
    one agent cell per named model under SMOKE_AGENT_BUDGET: the first agent smoke task any
    suite offers. Measuring a model takes a whole suite, not this."""
    cells = [
        PlannedCell(name, task, "reference", seed)
        for name in sorted(suites)
        for task in per_group(suites[name].smoke_tasks(), examples)
        for seed in seeds
    ]
    offered = [(name, task) for name in sorted(suites) if (task := suites[name].agent_smoke_task())]
    if offered:
        name, task = offered[0]
        cells += [
            PlannedCell(name, task, model, seeds[0], SMOKE_AGENT_BUDGET)
            for model in models
            if model != "reference"
        ]
    return cells


def split_patterns(patterns: Iterable[str]) -> list[str]:
    """`--tasks` is repeatable and takes comma-separated glob patterns."""
    return [part.strip() for pattern in patterns for part in pattern.split(",") if part.strip()]


def matches(task: BenchTask, pattern: str) -> bool:
    """A glob on the task id or its style, case-insensitive (`w-rand`, `beams2d/*/e0`)."""
    pattern = pattern.lower()
    return fnmatchcase(task.id.lower(), pattern) or fnmatchcase(task.style.lower(), pattern)


def per_group(tasks: list[BenchTask], examples: int | None) -> list[BenchTask]:
    """The first `examples` tasks of every (problem, style, condition): N examples of every
    style, however the suite orders its tasks. Tasks of one group differ only in their
    example, as in the summary's groups."""
    if examples is None:
        return tasks
    taken: Counter[tuple[str, str, str]] = Counter()
    kept = []
    for task in tasks:
        group = (task.problem, task.style, task.condition)
        if taken[group] < examples:
            taken[group] += 1
            kept.append(task)
    return kept


def run_bench(
    context: AppContext,
    suites: dict[str, Suite],
    cells: list[PlannedCell],
    out: Path,
    jobs: int = 1,
    on_cell: Callable[[CellRecord], None] = lambda record: None,
    executor: str = LOCAL,
    options: dict[str, str] | None = None,
    notify: Callable[[str], None] | None = None,
) -> BenchOutcome:
    """Run the cells not yet done with `executor` (`options` are its own: host, partition...),
    appending each record to `out` as it comes; the summary and reports are written even when
    the run is interrupted. ExecutorError: the executor is unknown or could not go on."""
    chosen = find_executor(context, executor)
    # absolute: cells hand their folder to tools, which read a relative path as one inside the
    # workspace (`--out` defaults to bench-results, relative to where `bench` was started)
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    done_before = {key for key, record in read_cells(out).items() if record["status"] == "ok"}
    todo = [cell for cell in cells if cell.key not in done_before]
    outcome = BenchOutcome(out, planned=len(cells), skipped=len(cells) - len(todo), computed=0)
    # the run's record goes with its results, whatever workspace `context` was opened on
    records = Store(bench_workspace(out))
    run_id = records.start_run("bench", {"out": str(out), "cells": len(cells)})
    status = "failed"
    try:
        request = ExecutionRequest(context, suites, todo, out, jobs, dict(options or {}))
        if notify is not None:
            request.notify = notify
        for record in chosen.run(request) if todo else ():
            append_cell(out, record)
            records.record_bench_cell(run_id, record)
            outcome.computed += 1
            if record["status"] != "ok":
                outcome.errors.append(f"{record['key']}: {record['error']}")
            on_cell(record)
        status = "done" if not outcome.errors else "errors"
    finally:
        latest = read_cells(out)
        finished = [latest[c.key] for c in cells if c.key in latest]
        outcome.summary = write_summary(out, finished)
        _write_reports(suites, finished, out, outcome)
        outcome.lines = suite_lines(finished, suites, outcome.report_of)
        outcome.index = write_index(out, finished, outcome.lines)
        records.finish_run(
            run_id,
            status,
            {"out": str(out), "computed": outcome.computed, "errors": len(outcome.errors)},
        )
        records.close()
    return outcome


def _write_reports(
    suites: dict[str, Suite], finished: list[CellRecord], out: Path, outcome: BenchOutcome
) -> None:
    """One report per suite or report group; one that fails is a harness error, the results
    stay."""
    groups: dict[str, list[str]] = {}
    for name in sorted({cell["suite"] for cell in finished}):
        groups.setdefault(suites[name].report_group or name, []).append(name)
    for members in groups.values():
        name = members[0]
        try:
            path = suites[name].report(out, [c for c in finished if c["suite"] in members])
        except Exception as error:
            outcome.errors.append(f"{name} report: {type(error).__name__}: {error}")
            continue
        if path is not None:
            outcome.reports.append(path)
            outcome.report_of.update(dict.fromkeys(members, path))
