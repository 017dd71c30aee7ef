"""Where the planned cells run: the executors.

The runner plans the cells, skips the finished ones and records every record an executor yields;
an executor only runs cells. The local one runs them in this process or a pool of worker
processes (`--jobs N`); plugins may contribute others (the hpc plugin's runs them as one Slurm
job array on a cluster), named with `bench --executor NAME`.
"""

from __future__ import annotations

import multiprocessing
import shutil
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeGuard, runtime_checkable

from workbench.bench.cell_result import CellResult
from workbench.bench.results import CellRecord, bench_workspace, cell_folder, cell_key
from workbench.bench.suite import (
    RULES_KIND,
    AgentBudget,
    BenchTask,
    CellContext,
    Suite,
    is_suite,
)
from workbench.core.context import AppContext
from workbench.core.settings_model_access import model_settings

LOCAL = "local"


class ExecutorError(ValueError):
    """The executor cannot run as asked (unknown executor, missing option, unreachable host)."""


@dataclass(frozen=True)
class PlannedCell:
    suite: str
    task: BenchTask
    model: str
    seed: int
    budget: AgentBudget | None = None
    judge: str = ""  # the judge model of a suite that judges (Suite.judge_for), else ""
    preset: str = ""  # one of the suite's presets (`bench --preset`), else "" (its default)

    @property
    def key(self) -> str:
        tags = [self.budget.tag if self.budget else "", f"judge={self.judge}" if self.judge else ""]
        tags.append(f"preset={self.preset}" if self.preset else "")
        return cell_key(
            self.suite, self.task.id, self.model, self.seed, "|".join(filter(None, tags))
        )

    def to_json(self) -> dict[str, Any]:
        """What another process needs to find this cell again among its own suites."""
        return {
            "key": self.key,
            "suite": self.suite,
            "task": self.task.id,
            "model": self.model,
            "seed": self.seed,
            "budget": asdict(self.budget) if self.budget else None,
            "judge": self.judge,
            "preset": self.preset,
        }


def cell_from_json(data: dict[str, Any], suites: dict[str, Suite]) -> PlannedCell:
    """The cell `PlannedCell.to_json` described, with the task as this process's suite has it."""
    suite = suites.get(data["suite"])
    if suite is None:
        raise ExecutorError(
            f"Suite {data['suite']!r} is not installed here; install the plugin that provides it."
        )
    task = next((task for task in suite.tasks() if task.id == data["task"]), None)
    if task is None:
        raise ExecutorError(
            f"Suite {data['suite']!r} has no task {data['task']!r} here; install the same "
            "version of its plugin as where the bench was planned."
        )
    budget = AgentBudget(**data["budget"]) if data.get("budget") else None
    judge, preset = str(data.get("judge") or ""), str(data.get("preset") or "")
    return PlannedCell(data["suite"], task, data["model"], int(data["seed"]), budget, judge, preset)


def load_suites(context: AppContext) -> dict[str, Suite]:
    suites: dict[str, Suite] = {}
    for _plugin, contributed in context.plugins.contributions("suites", "suites", is_suite):
        for suite in contributed:
            suites[suite.name] = suite
    return suites


@dataclass
class ExecutionRequest:
    """Everything an executor gets: the cells still to run and where their results go."""

    context: AppContext
    suites: dict[str, Suite]
    cells: list[PlannedCell]  # not yet done (the runner skipped the finished ones)
    out: Path  # absolute results folder; a cell's files go to `cell_folder(out, key)`
    jobs: int = 1
    options: dict[str, str] = field(default_factory=dict)  # --host, --partition...
    notify: Callable[[str], None] = lambda text: print(text, file=sys.stderr, flush=True)


@runtime_checkable
class Executor(Protocol):
    """Runs cells and yields each one's record as soon as it is known, in any order; a cell
    whose harness failed is a record with status "error", never an exception. Raising means
    the executor could not go on (the records yielded so far are kept)."""

    @property
    def name(self) -> str:
        """What `bench --executor` calls it."""

    def run(self, request: ExecutionRequest) -> Iterable[CellRecord]:
        """The records of `request.cells`."""


def is_executor(item: object) -> TypeGuard[Executor]:
    """What a plugin's executors factory must return a list of."""
    return isinstance(item, Executor) and isinstance(getattr(item, "name", None), str)


def find_executor(context: AppContext, name: str) -> Executor:
    """The local executor or one a plugin contributes; ExecutorError naming the installed ones."""
    if name == LOCAL:  # never imports the plugins' executors (nor what they need: ssh...)
        return LocalExecutor()
    found: dict[str, Executor] = {LOCAL: LocalExecutor()}
    for _plugin, executors in context.plugins.contributions("executors", "executors", is_executor):
        for executor in executors:
            found.setdefault(executor.name, executor)
    if name not in found:
        raise ExecutorError(
            f"Unknown executor {name!r}. Installed: {', '.join(sorted(found))}. "
            "An executor comes with a plugin (slurm: the hpc plugin)."
        )
    return found[name]


def execute_cell(suite: Suite, cell: PlannedCell, context: AppContext, out: Path) -> CellRecord:
    """Run one cell in a workspace of its own, its folder (store, artifacts, ledger, agent
    checkpoints, and the files the cell writes, so that tools confined to the workspace may
    write them), so "the last design" can only be this cell's; a harness failure becomes a
    record with status "error", never an exception."""
    folder = cell_folder(out, cell.key)
    shutil.rmtree(folder, ignore_errors=True)  # a retried cell never sees its failed attempt
    folder.mkdir(parents=True)
    record = cell_record(cell)
    # how the model sampled (temperature, seed, context, server), for reports and reruns
    record["model_settings"] = model_settings(cell.model, context.settings)
    if cell.judge:
        record["judge_settings"] = (
            {"profile": cell.judge, "kind": RULES_KIND, "temperature": None, "seed": None}
            if cell.judge in suite.rule_judges
            else model_settings(cell.judge, context.settings)
        )
    started = time.perf_counter()
    try:
        app = context.for_workspace(folder)  # shares the warm job workers
        app.plugins = app.plugins.sealed()  # no specialist from the user's external MCP servers
        try:
            produced = suite.run(
                cell.task,
                cell.model,
                cell.seed,
                CellContext(app, folder, cell.budget, cell.judge, cell.preset),
            )
        finally:
            app.close()
        if not isinstance(produced, CellResult):  # a plugin's suite written before CellResult
            raise TypeError(
                f"suite {suite.name} returned {type(produced).__name__}; Suite.run returns a "
                "CellResult (workbench.bench.earned): scores, details and the bindings apart"
            )
        gated = produced.gated(suite.headline)
        record["details"] = gated.details
        record["scores"] = gated.scores
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


def cell_record(cell: PlannedCell) -> CellRecord:
    """The keys every record of `cell` starts with, whatever becomes of it."""
    return {
        "key": cell.key,
        "suite": cell.suite,
        "task": cell.task.id,
        "problem": cell.task.problem,
        "style": cell.task.style,
        "condition": cell.task.condition,
        "model": cell.model,
        "seed": cell.seed,
        **({"budget": asdict(cell.budget)} if cell.budget else {}),
        **({"judge": cell.judge} if cell.judge else {}),
        **({"preset": cell.preset} if cell.preset else {}),
    }


class LocalExecutor:
    """This machine: in this process, or a pool of `jobs` worker processes."""

    name = LOCAL

    def run(self, request: ExecutionRequest) -> Iterable[CellRecord]:
        suites, todo, out, jobs = request.suites, request.cells, request.out, request.jobs
        if jobs <= 1 or len(todo) <= 1:
            for cell in todo:
                yield execute_cell(suites[cell.suite], cell, request.context, out)
            return
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(
            jobs, mp_context=spawn, initializer=_start_worker, initargs=(out,)
        ) as pool:
            futures: dict[Future[CellRecord], PlannedCell] = {
                pool.submit(_run_in_worker, cell, out): cell for cell in todo
            }
            for future in as_completed(futures):
                yield future.result()


# -- worker processes (--jobs N): each opens its own context on the results folder's workspace ---
@dataclass(frozen=True)
class _WorkerState:
    context: AppContext
    suites: dict[str, Suite]


_worker: _WorkerState | None = None  # set once in each worker process by `_start_worker`


def _start_worker(out: Path) -> None:
    global _worker
    context = AppContext.open(workspace=bench_workspace(out))
    _worker = _WorkerState(context, load_suites(context))


def _run_in_worker(cell: PlannedCell, out: Path) -> CellRecord:
    if _worker is None:
        raise RuntimeError("a bench worker process ran a cell before `_start_worker`")
    return execute_cell(_worker.suites[cell.suite], cell, _worker.context, out)
