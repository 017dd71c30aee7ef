"""The `slurm` bench executor: `bench SUITES --executor slurm --host NAME` runs the cells as ONE
Slurm job array on a cluster and gathers them into the same results folder as a local run.

On the host, under its remote_root, a run folder gets the plan (the cells, as JSON) and task i
of the array runs `python -m workbench_plugins.hpc.executor run-cell PLAN` (cell i: the task's
SLURM_ARRAY_TASK_ID) into the run folder's `out`, and writes the cell's record to
`records/<i>.json`. Here, the array is followed with one squeue call a poll; each finished
cell's record and folder come back over SFTP and go to the runner, which appends them as usual.

The array in flight is noted in `<out>/slurm-array.json`: a run interrupted (or killed) and
started again re-attaches to it instead of submitting the cells again. Ctrl-C once says what a
second one does; twice cancels the array (scancel) and stops; the results so far are kept.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from workbench.bench.executors import (
    ExecutionRequest,
    ExecutorError,
    PlannedCell,
    cell_record,
)
from workbench.bench.results import CellRecord, cell_folder
from workbench_plugins.hpc.config import HostProfile, settings_of
from workbench_plugins.hpc.remote import RemoteShell
from workbench_plugins.hpc.slurm.client import SlurmClient, SlurmError, SlurmUnavailable
from workbench_plugins.hpc.slurm.jobs import JobRow
from workbench_plugins.hpc.slurm.script import JobSpec, render_script
from workbench_plugins.hpc.ssh.errors import SshFailure
from workbench_plugins.hpc.ssh.pool import SshPool

STATE = "slurm-array.json"  # in the local results folder while an array is in flight
PLAN = "plan.json"
RECORDS = "records"
JOB_NAME = "wb-bench"
MODULE = "workbench_plugins.hpc.executor"  # this module, as the array's tasks run it
DEFAULT_TIME_LIMIT = "01:00:00"  # per cell (task); the request's time_limit option changes it
GONE_AFTER_POLLS = 5  # polls in a row Slurm knows nothing of a task before it counts as lost


@dataclass
class ArrayRun:
    """One submitted array: where it runs and which cell each task index is."""

    host: str
    job_id: str
    remote_dir: str
    keys: list[str]  # task index -> cell key

    @property
    def remote_out(self) -> str:
        return f"{self.remote_dir}/out"

    def log_path(self, index: int) -> str:
        return f"{self.remote_dir}/logs/slurm-{self.job_id}_{index}.out"

    def save(self, out: Path) -> None:
        partial = out / (STATE + ".part")
        partial.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        os.replace(partial, out / STATE)

    @classmethod
    def load(cls, out: Path) -> ArrayRun | None:
        try:
            return cls(**json.loads((out / STATE).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None


class SlurmExecutor:
    """Cells as one Slurm job array on `--host` (a host profile of the hpc settings)."""

    name = "slurm"

    def run(self, request: ExecutionRequest) -> Iterator[CellRecord]:
        host = request.options.get("host", "")
        if not host:
            raise ExecutorError(
                "--executor slurm needs --host NAME: a host of the hpc plugin's settings or of "
                "~/.ssh/config."
            )
        settings = settings_of(request.context)
        # a name only ~/.ssh/config knows has the profile defaults (remote_root, python...)
        profile = settings.profile(host) or HostProfile(name=host)
        pool = SshPool(settings)
        try:
            shell = pool.shell(host)
            with _interrupts(request.notify) as cancel:
                session = _Session(request, profile, shell, settings.poll_seconds, cancel)
                yield from session.run()
        except SshFailure as failure:
            raise ExecutorError(
                f"{failure} {failure.advice} A submitted array keeps running; run the same "
                "command again to re-attach to it."
            ) from failure
        except SlurmError as failure:
            raise ExecutorError(str(failure)) from failure
        finally:
            pool.close()


class _Session:
    """One `bench` run's dealings with the cluster: re-attach, submit, follow, gather."""

    def __init__(
        self,
        request: ExecutionRequest,
        profile: HostProfile,
        shell: RemoteShell,
        poll_seconds: float,
        cancel: threading.Event,
    ) -> None:
        self.request, self.profile, self.shell = request, profile, shell
        self.client = SlurmClient(shell)
        self.poll_seconds, self.cancel = max(poll_seconds, 0.2), cancel
        self.out = request.out
        self.python = request.options.get("remote_python") or profile.python or sys.executable
        self.partition = request.options.get("partition") or profile.partition

    def run(self) -> Iterator[CellRecord]:
        wanted = {cell.key: cell for cell in self.request.cells}
        previous = ArrayRun.load(self.out)
        if previous is not None and previous.host == self.shell.host:
            attached = {key: wanted[key] for key in previous.keys if key in wanted}
            if attached:
                self.request.notify(
                    f"Re-attaching to Slurm array {previous.job_id} on {previous.host} "
                    f"({len(attached)} cell(s))."
                )
                for record in self._follow(previous, attached):
                    wanted.pop(record["key"], None)
                    yield record
        if wanted:
            run = self._submit(list(wanted.values()))
            yield from self._follow(run, wanted)
        (self.out / STATE).unlink(missing_ok=True)  # everything is in results.jsonl now

    # -- submitting ---------------------------------------------------------------------------
    def _submit(self, cells: list[PlannedCell]) -> ArrayRun:
        self._check_python()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        remote_dir = f"{self._remote_root()}/bench/{stamp}-{os.getpid()}"
        run = ArrayRun(self.shell.host, "", remote_dir, [cell.key for cell in cells])
        plan = {
            "out": run.remote_out,
            "records": f"{remote_dir}/{RECORDS}",
            "cells": [{**cell.to_json(), "record": cell_record(cell)} for cell in cells],
        }
        self.shell.write_text(f"{remote_dir}/{PLAN}", json.dumps(plan, indent=1))
        self.shell.run(
            ["mkdir", "-p", f"{remote_dir}/logs", f"{remote_dir}/{RECORDS}", run.remote_out]
        ).check("creating the bench run folder")
        spec = JobSpec(
            name=JOB_NAME,
            command=[self.python, "-m", MODULE, "run-cell", f"{remote_dir}/{PLAN}"],
            partition=self.partition,
            time_limit=self.request.options.get("time_limit", DEFAULT_TIME_LIMIT),
            array=f"0-{len(cells) - 1}",
            environment={"PYTHONUNBUFFERED": "1"},
            workdir=remote_dir,
            output=f"{remote_dir}/logs/slurm-%A_%a.out",
        )
        run.job_id = self.client.submit(render_script(spec), remote_dir)
        run.save(self.out)  # before anything else can interrupt: a rerun re-attaches
        self.request.notify(
            f"Submitted Slurm array {run.job_id} ({len(cells)} cells) on {run.host}; "
            f"its files: {remote_dir}"
        )
        return run

    def _remote_root(self) -> str:
        root = self.profile.remote_root.rstrip("/") or "~/workbench"
        if root == "~" or root.startswith("~/"):
            root = self.shell.home().rstrip("/") + root[1:]
        return root

    def _check_python(self) -> None:
        probe = self.shell.run([self.python, "-c", f"import {MODULE}"], timeout=120)
        if not probe.ok:
            said = (probe.stderr or probe.stdout).strip()[-300:] or f"exit {probe.exit_code}"
            raise ExecutorError(
                f"{self.python} on {self.shell.host} cannot run the bench cells ({said}). "
                "Install the project there, or name its python with --remote-python PATH "
                "(or the host's python setting)."
            )

    # -- following -----------------------------------------------------------------------------
    def _follow(self, run: ArrayRun, cells: dict[str, PlannedCell]) -> Iterator[CellRecord]:
        """Every cell of `cells` that `run` has: its record once its task wrote one, or an
        error record once its task ended without one."""
        pending = {index: cells[key] for index, key in enumerate(run.keys) if key in cells}
        unseen = dict.fromkeys(pending, 0)
        while pending:
            for index in sorted(self._written(run) & set(pending)):
                yield self._fetch(run, index)
                del pending[index]
            rows = self._task_rows(run) if pending else None
            if rows is not None:  # None: the controller did not answer, nothing known ended
                alive = any(not row.state.finished for row in rows.values())
                ended = []
                for index in pending:
                    row = rows.get(index)
                    unseen[index] = 0 if row is not None or alive else unseen[index] + 1
                    if (row is not None and row.state.finished) or (
                        unseen[index] >= GONE_AFTER_POLLS
                    ):
                        ended.append(index)
                written = self._written(run) if ended else set()  # written just before the end
                for index in ended:
                    if index in written:
                        yield self._fetch(run, index)
                    else:
                        yield self._lost(run, index, pending[index], rows.get(index))
                    del pending[index]
            if pending and self.cancel.wait(self.poll_seconds):
                self._cancel(run)

    def _task_rows(self, run: ArrayRun) -> dict[int, JobRow] | None:
        """The array's tasks Slurm reports, by index (one squeue call); None when the
        controller did not answer (restarting)."""
        try:
            rows = self.client.states([run.job_id])
        except SlurmUnavailable as error:
            self.request.notify(f"Still following array {run.job_id}: {error}")
            return None
        by_index: dict[int, JobRow] = {}
        for job_id, row in rows.items():
            task = row.array_task if row.array_task is not None else job_id.partition("_")[2]
            if (row.array_job_id in ("", run.job_id)) and str(task).isdigit():
                by_index[int(task)] = row
        return by_index

    def _written(self, run: ArrayRun) -> set[int]:
        listing = self.shell.run(["ls", "-1", f"{run.remote_dir}/{RECORDS}"])
        names = listing.stdout.split() if listing.ok else []
        return {int(name[:-5]) for name in names if name.endswith(".json") and name[:-5].isdigit()}

    def _fetch(self, run: ArrayRun, index: int) -> CellRecord:
        """Cell `index`'s record and folder, brought here; remote paths in it made local."""
        text = self.shell.read_text(f"{run.remote_dir}/{RECORDS}/{index}.json")
        text = text.replace(json.dumps(run.remote_out)[1:-1], json.dumps(str(self.out))[1:-1])
        record: CellRecord = json.loads(text)
        local = cell_folder(self.out, record["key"])
        remote = cell_folder(Path(run.remote_out), record["key"]).as_posix()
        shutil.rmtree(local, ignore_errors=True)
        local.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.shell.download(remote, local)
        except (OSError, SshFailure) as error:  # the record still counts; say what is missing
            self.request.notify(f"Cell {record['key']}: its folder did not come back: {error}")
        record["slurm_job"] = f"{run.host}:{run.job_id}_{index}"
        return record

    def _lost(self, run: ArrayRun, index: int, cell: PlannedCell, row: JobRow | None) -> CellRecord:
        how = (
            f"ended {row.state.value} (exit code {row.exit_code or 'unknown'})"
            if row is not None
            else "is no longer known to Slurm"
        )
        return {
            **cell_record(cell),
            "status": "error",
            "scores": {},
            "error": f"Slurm task {run.job_id}_{index} {how} without a result; its log: "
            f"{run.host}:{run.log_path(index)}",
            "duration_s": 0.0,
            "slurm_job": f"{run.host}:{run.job_id}_{index}",
        }

    def _cancel(self, run: ArrayRun) -> None:
        self.client.cancel(run.job_id)
        (self.out / STATE).unlink(missing_ok=True)  # nothing left to re-attach to
        self.request.notify(f"Cancelled Slurm array {run.job_id} on {run.host}.")
        raise KeyboardInterrupt


@contextmanager
def _interrupts(notify: Callable[[str], None]) -> Iterator[threading.Event]:
    """Ctrl-C once: say what a second one does; twice: the event is set (cancel the array).
    Outside the main thread signals cannot be caught; the event is then never set."""
    cancel = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield cancel
        return
    presses = 0

    def on_interrupt(number: int, frame: object) -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            notify("Press Ctrl-C again to cancel the cluster jobs; the results so far are kept.")
        else:
            cancel.set()

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield cancel
    finally:
        signal.signal(signal.SIGINT, previous)


def executors() -> list[SlurmExecutor]:
    """The hpc plugin's bench executors (the Plugin's `executors` reference)."""
    return [SlurmExecutor()]


# -- on the cluster: one array task runs one cell ----------------------------------------------
def run_cell(plan_path: Path, index: int) -> int:
    """Run cell `index` of the plan into its `out` and write its record (atomically) where the
    executor looks for it; a harness failure is an error record, exit 0 all the same."""
    from workbench.bench.executors import cell_from_json, execute_cell, load_suites
    from workbench.bench.results import bench_workspace
    from workbench.core.context import AppContext

    plan: dict[str, Any] = json.loads(plan_path.read_text(encoding="utf-8"))
    entry = plan["cells"][index]
    out = Path(plan["out"])
    record: CellRecord
    try:
        context = AppContext.open(workspace=bench_workspace(out))
        try:
            suites = load_suites(context)
            cell = cell_from_json(entry, suites)
            record = execute_cell(suites[cell.suite], cell, context, out)
        finally:
            context.close()
    except Exception as error:
        record = {
            **entry["record"],
            "status": "error",
            "scores": {},
            "error": f"{type(error).__name__}: {error}",
            "duration_s": 0.0,
        }
    records = Path(plan["records"])
    records.mkdir(parents=True, exist_ok=True)
    partial = records / f"{index}.json.part"
    partial.write_text(json.dumps(record, sort_keys=True, default=str), encoding="utf-8")
    os.replace(partial, records / f"{index}.json")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m workbench_plugins.hpc.executor run-cell PLAN [--index I]` (the array's task
    command; I defaults to SLURM_ARRAY_TASK_ID)."""
    import argparse

    parser = argparse.ArgumentParser(prog="workbench_plugins.hpc.executor")
    commands = parser.add_subparsers(dest="command", required=True)
    cell = commands.add_parser("run-cell", help="run one cell of a bench plan (a Slurm task)")
    cell.add_argument("plan", type=Path)
    cell.add_argument("--index", type=int, default=None)
    args = parser.parse_args(argv)
    index = args.index
    if index is None:
        task = os.environ.get("SLURM_ARRAY_TASK_ID", "")
        if not task.isdigit():
            parser.error("--index is needed outside a Slurm array task")
        index = int(task)
    return run_cell(args.plan, index)


if __name__ == "__main__":
    sys.exit(main())
