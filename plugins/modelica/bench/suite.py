"""The bench suite `modelica`: every task package of the benchmark x mode (harness, plain loop).

Tasks: `<task_id>/<mode>`; the summary groups them by task type (problem), mode (style) and
difficulty (condition). The smoke selection is the first repair task in both modes.

A cell is sealed. It runs in its own workspace (the runner's `cell.app`): the run's workspace is
`<cell>/workspace`, and the run (a direct policy, see `policies`; one of the two that cheat, see
`cheats`; or a model through `driver.run_task`) writes `<cell>/submission.json`, outside it. After
the run ends the evaluator judges THAT file, in `<cell>/evaluation`. The headline (`passed`) is
bound to the bytes the run submitted (workbench.bench.earned): the verdict must name them and the
file must still hold them when the cell ends, else `passed` is 0. No submission file is a
failure to submit (scored 0), whatever the workspace holds.

Options from the environment: WORKBENCH_MODELICA_BENCHMARK (the task set's root, the loader's),
WORKBENCH_MODELICA_BENCH_BACKEND (the evaluator's backend; default the Modelica settings').
"""

from __future__ import annotations

import hashlib
import os
from functools import cached_property
from pathlib import Path
from typing import Any

from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.earned import CHEATS, Binding, CellResult, sha256_file
from workbench.bench.results import CellRecord
from workbench.bench.tool_calls import HarnessFailure, ToolCall, is_direct
from workbench_plugins.modelica.bench.cheats import play_cheat
from workbench_plugins.modelica.bench.policies import Played, play_direct
from workbench_plugins.modelica.bench.report import MODES, write_report
from workbench_plugins.modelica.config import ModelicaSettings
from workbench_plugins.modelica.evaluator import Verdict, evaluate, evaluate_missing
from workbench_plugins.modelica.task_packages.packages import (
    TaskPackage,
    benchmark_root,
    load_packages,
)
from workbench_plugins.modelica.task_packages.submissions import SubmissionError, read_submission

ENV_BACKEND = "WORKBENCH_MODELICA_BENCH_BACKEND"
SUBMISSION = "submission.json"
EVALUATION = "evaluation"  # the evaluator's work folder in the cell, outside the run's workspace


class ModelicaSuite(Suite):
    name = "modelica"
    headline = ("passed",)

    def __init__(self, root: Path | None = None, backend: str = "") -> None:
        self.root = Path(root) if root is not None else benchmark_root()
        self.backend = backend
        self.description = (
            "Modelica Agent Workflow Benchmark: repair, generation and tuning tasks, each in the "
            "harness and in the plain loop; the evaluator judges submission.json after the run."
        )

    @cached_property
    def packages(self) -> dict[str, TaskPackage]:
        """The task set, loaded once; none when the root holds no tasks/ folder (an install
        without the repository's benchmarks), a loading error for a broken package."""
        if not (self.root / "tasks").is_dir():
            return {}
        return {package.task_id: package for package in load_packages(self.root)}

    def tasks(self) -> list[BenchTask]:
        return [
            BenchTask(
                f"{task_id}/{mode}",
                problem=package.task.task_type,
                style=mode,
                condition=package.task.difficulty,
                smoke=task_id == self._smoke_task_id(),
                payload={"task_id": task_id, "mode": mode},
            )
            for task_id, package in sorted(self.packages.items())
            for mode in MODES
        ]

    def _smoke_task_id(self) -> str:
        repairs = sorted(t for t, p in self.packages.items() if p.task.task_type == "model_repair")
        return (repairs or sorted(self.packages) or [""])[0]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        package = self.packages[str(task.payload["task_id"])]
        mode = str(task.payload["mode"])
        backend = self.backend or cell.app.settings.plugin("modelica", ModelicaSettings).backend
        played = self._play(package, mode, model, cell)
        submitted = sha256_file(cell.folder / SUBMISSION)  # the bytes the run submitted
        verdict, sealed = seal_and_evaluate(package, cell.folder, backend)
        scores = scores_of(verdict, played)
        details = {
            "task_id": package.task_id,
            "task_type": package.task.task_type,
            "difficulty": package.task.difficulty,
            "domain": package.contract.domain,
            "mode": mode,
            "policy": model if is_direct(model) else "agent",
            "failed_stage": verdict.failed_stage,
            "gates": {name: gate.model_dump() for name, gate in verdict.gates.items()},
            "verdict": verdict.explain(),
            "backend": verdict.backend or backend,
            "submission": sealed,
            "run": {
                "status": played.status,
                "reason": played.reason,
                "run_id": played.run_id,
                "candidate_id": played.candidate_id,
                "override": played.override,
                "notes": played.notes,
            },
            "tool_calls": [{"name": call.name, "ok": call.ok} for call in played.calls],
            "answer": played.answer,  # the final message of a policy that states one: not scored
            "evaluation_s": round(verdict.elapsed_s, 4),
        }
        return CellResult(scores, details, bindings_of(submitted, verdict, cell.folder))

    def _play(self, package: TaskPackage, mode: str, model: str, cell: CellContext) -> Played:
        from workbench_plugins.modelica.driver.task_source import public_verifier, task_from_public

        task = task_from_public(package.task_path, package.library)
        if is_direct(model):
            verify = public_verifier(cell.app) if mode == "harness" else None
            if model in CHEATS:
                return play_cheat(model, package, task, mode, cell.app, cell.folder, verify)
            return play_direct(model, package, task, mode, cell.app, cell.folder, verify)
        return play_agent(task, model, mode, cell)

    def report(self, folder: Path, cells: list[CellRecord]) -> Path | None:
        return write_report(folder, cells) if cells else None

    def smoke_tasks(self) -> list[BenchTask]:
        return [task for task in self.tasks() if task.smoke]


def play_agent(task: Any, model: str, mode: str, cell: CellContext) -> Played:
    """A model drives the run through `driver.run_task` (the runner's budget, if any, as the
    run's limits: model calls as turns, seconds as wall time). A model that never answered is a
    harness failure, not a score of 0."""
    from workbench_plugins.modelica import harness
    from workbench_plugins.modelica.driver.run_task import run_task

    limits = None
    if cell.budget is not None:
        limits = task.limits.model_copy(
            update={"turns": cell.budget.model_calls, "wall_time_s": cell.budget.seconds}
        )
    record = run_task(cell.app, task, model, cell.folder, mode=mode, limits=limits)
    harness.forget_run(record.run_id)
    if record.status == "error" and record.model_calls == 0:
        # the model never answered (no server, no such model): no measurement, a harness error
        raise HarnessFailure(f"{model} did not answer: {record.reason}")
    return Played(
        status=record.status,
        reason=record.reason,
        run_id=record.run_id,
        candidate_id=record.candidate_id,
        turns=record.turns,
        simulations=record.simulations,
        model_calls=record.model_calls,
        wall_s=record.wall_time_s,
        tokens=dict(record.tokens),
        calls=[ToolCall(str(c["name"]), ok=bool(c["ok"])) for c in record.tool_calls],
    )


def seal_and_evaluate(
    package: TaskPackage, folder: Path, backend: str
) -> tuple[Verdict, dict[str, Any]]:
    """The verdict on `<folder>/submission.json` as it is now, and what binds the two: the
    file's sha256 and the one the verdict names."""
    path = folder / SUBMISSION
    if not path.is_file():
        return evaluate_missing(package), {"file": "", "sha256": "", "matches": False}
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    sealed: dict[str, Any] = {"file": SUBMISSION, "bytes": len(data), "sha256": digest}
    try:
        submission = read_submission(path)
    except SubmissionError as error:
        sealed.update(evaluated_sha256="", matches=False, unreadable=str(error))
        return evaluate_missing(package), sealed
    verdict = evaluate(package, submission, backend=backend, work_dir=folder / EVALUATION)
    sealed.update(
        evaluated_sha256=verdict.submission_sha256,
        matches=verdict.submission_sha256 == digest,
    )
    return verdict, sealed


def bindings_of(submitted: str | None, verdict: Verdict, folder: Path) -> list[Binding]:
    """What `passed` rests on: the bytes the run submitted are the ones the verdict judged and
    the ones on disk when the cell ends (none when nothing was submitted: nothing passes)."""
    if submitted is None:
        return []
    judged = verdict.submission_sha256 or None
    return [
        Binding("submission.json as the evaluator judged it", submitted, judged),
        Binding.to_file("submission.json at the end of the cell", folder / SUBMISSION, submitted),
    ]


def scores_of(verdict: Verdict, played: Played) -> dict[str, float]:
    """The cell's numbers (`passed` is gated by the bindings when the executor records it)."""
    tokens = played.tokens
    submitted = verdict.failed_stage != "no_submission"
    return {
        "passed": float(verdict.passed),
        "executable": float(verdict.executable),
        "executable_but_wrong": float(verdict.executable and not verdict.passed),
        "submitted": float(submitted),
        "tokens_logical": float(tokens.get("logical", sum(_kinds(tokens).values()))),
        "tokens_input": float(tokens.get("input_uncached", 0)),
        "tokens_output": float(tokens.get("output", 0)),
        "tokens_cache_creation": float(tokens.get("cache_creation", 0)),
        "tokens_cache_read": float(tokens.get("cache_read", 0)),
        "wall_s": round(float(played.wall_s), 4),
        "turns": float(played.turns),
        "model_calls": float(played.model_calls),
        "simulations": float(played.simulations),
    }


def _kinds(tokens: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in tokens.items() if k != "logical"}


def suites() -> list[Suite]:
    return [ModelicaSuite(backend=os.environ.get(ENV_BACKEND, "").strip())]
