"""Plan cells, skip the finished ones, run the rest (in this process or a pool), record each."""

from __future__ import annotations

import multiprocessing
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.bench.results import (
    append_cell,
    cell_folder,
    cell_key,
    read_cells,
    write_summary,
)
from workbench.bench.suite import BenchTask, CellContext, Suite
from workbench.core.context import AppContext


class BenchError(ValueError):
    """The request cannot be run as asked (unknown suite, bad option); nothing was started."""


@dataclass(frozen=True)
class PlannedCell:
    suite: str
    task: BenchTask
    model: str
    seed: int

    @property
    def key(self) -> str:
        return cell_key(self.suite, self.task.id, self.model, self.seed)


@dataclass
class BenchOutcome:
    folder: Path
    planned: int
    skipped: int
    computed: int
    errors: list[str] = field(default_factory=list)
    summary: list[dict[str, Any]] = field(default_factory=list)
    reports: list[Path] = field(default_factory=list)


def load_suites(context: AppContext) -> dict[str, Suite]:
    suites: dict[str, Suite] = {}
    for _plugin, contributed in context.plugins.contributions("suites", "suites"):
        for suite in contributed:
            suites[suite.name] = suite
    return suites


def plan(
    suites: dict[str, Suite],
    names: list[str],
    models: list[str],
    seeds: list[int],
    examples: int | None,
) -> list[PlannedCell]:
    unknown = [name for name in names if name not in suites]
    if unknown:
        raise BenchError(
            f"Unknown suite(s): {', '.join(unknown)}. Installed: {', '.join(sorted(suites))}. "
            "See `workbench --headless bench --list`."
        )
    if examples is not None and examples < 1:
        raise BenchError("--examples must be at least 1.")
    cells = []
    for name in names or sorted(suites):
        suite = suites[name]
        tasks = suite.tasks() if names else suite.smoke_tasks()
        for task in tasks[:examples] if examples else tasks:
            cells += [PlannedCell(name, task, model, seed) for model in models for seed in seeds]
    return cells


def execute_cell(suite: Suite, cell: PlannedCell, context: AppContext, out: Path) -> dict[str, Any]:
    """Run one cell; a harness failure becomes a record with status "error", never an exception."""
    folder = cell_folder(out, cell.key)
    folder.mkdir(parents=True, exist_ok=True)
    record: dict[str, Any] = {
        "key": cell.key,
        "suite": cell.suite,
        "task": cell.task.id,
        "problem": cell.task.problem,
        "style": cell.task.style,
        "condition": cell.task.condition,
        "model": cell.model,
        "seed": cell.seed,
    }
    started = time.perf_counter()
    try:
        produced = dict(suite.run(cell.task, cell.model, cell.seed, CellContext(context, folder)))
        record["details"] = produced.pop("details", {})
        record["scores"] = produced
        record["status"] = "ok"
    except Exception as error:
        record.update(
            status="error",
            scores={},
            error=f"{type(error).__name__}: {error}",
            traceback=traceback.format_exc(),
        )
    record["duration_s"] = round(time.perf_counter() - started, 6)
    return record


# -- worker processes (--jobs N): each opens its own context on the same workspace -----------------
_worker: dict[str, Any] = {}


def _start_worker() -> None:
    context = AppContext.open()
    _worker.update(context=context, suites=load_suites(context))


def _run_in_worker(cell: PlannedCell, out: Path) -> dict[str, Any]:
    return execute_cell(_worker["suites"][cell.suite], cell, _worker["context"], out)


def run_bench(
    context: AppContext,
    suites: dict[str, Suite],
    cells: list[PlannedCell],
    out: Path,
    jobs: int = 1,
    on_cell: Callable[[dict[str, Any]], None] = lambda record: None,
) -> BenchOutcome:
    out.mkdir(parents=True, exist_ok=True)
    finished = {key for key, record in read_cells(out).items() if record["status"] == "ok"}
    todo = [cell for cell in cells if cell.key not in finished]
    outcome = BenchOutcome(out, planned=len(cells), skipped=len(cells) - len(todo), computed=0)
    run_id = context.store.start_run("bench", {"out": str(out), "cells": len(cells)})
    status = "failed"
    try:
        for record in _records(context, suites, todo, out, jobs):
            append_cell(out, record)
            context.store.record_bench_cell(run_id, record)
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
        context.store.finish_run(
            run_id,
            status,
            {"out": str(out), "computed": outcome.computed, "errors": len(outcome.errors)},
        )
    return outcome


def _write_reports(
    suites: dict[str, Suite], finished: list[dict[str, Any]], out: Path, outcome: BenchOutcome
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


def _records(
    context: AppContext, suites: dict[str, Suite], todo: list[PlannedCell], out: Path, jobs: int
) -> Iterable[dict[str, Any]]:
    if jobs <= 1 or len(todo) <= 1:
        for cell in todo:
            yield execute_cell(suites[cell.suite], cell, context, out)
        return
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=spawn, initializer=_start_worker) as pool:
        futures: dict[Future[dict[str, Any]], PlannedCell] = {
            pool.submit(_run_in_worker, cell, out): cell for cell in todo
        }
        for future in as_completed(futures):
            yield future.result()
