"""The evaluator: one submission of one task package, judged gate by gate outside the agent's loop.

PASS = I and M and C and S and B. The submitted artifact is written, byte for byte, into the
evaluator's own work_dir (never an agent's workspace) and loaded with the package's library; the
verdict names the submission's sha256 so it binds to exactly what was judged. Gates run in order
and stop at the first failure; a verdict lists the gates that ran. The interface is checked twice:
in the text first, then against the model's own names once it has checked and simulated.
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from workbench_plugins.modelica.backend_base import (
    Backend,
    BackendUnavailable,
    CheckResult,
    SimulationResult,
    SimulationSettings,
)
from workbench_plugins.modelica.backends import backend_named
from workbench_plugins.modelica.evaluator import gates
from workbench_plugins.modelica.evaluator.gates import GateResult
from workbench_plugins.modelica.evaluator.metrics import MetricResult, measure
from workbench_plugins.modelica.task_packages.contract import DEFAULT_SCENARIO, Metric
from workbench_plugins.modelica.task_packages.packages import TaskPackage
from workbench_plugins.modelica.task_packages.submissions import SubmissionFile

FailedStage = Literal[
    "", "interface", "constraints", "check", "simulate", "behaviour", "no_submission"
]


class Verdict(BaseModel):
    task_id: str
    passed: bool
    failed_stage: FailedStage = ""
    executable: bool = False  # C and S passed
    gates: dict[str, GateResult] = Field(default_factory=dict)
    submission_sha256: str = ""
    backend: str = ""
    metrics: list[MetricResult] = Field(default_factory=list)
    elapsed_s: float = 0.0

    def explain(self) -> str:
        """One line: PASS, or the failed stage and why."""
        if self.passed:
            return f"{self.task_id}: PASS"
        if self.failed_stage == "no_submission":
            return f"{self.task_id}: FAIL (no submission)"
        why = self.gates[self.failed_stage].detail if self.failed_stage in self.gates else ""
        return f"{self.task_id}: FAIL at {self.failed_stage}: {why}"


def usable_backend(name: str) -> Backend:
    """The named backend, or BackendUnavailable saying why it cannot run here."""
    backend = backend_named(name)
    usable, why = backend.available()
    if not usable:
        raise BackendUnavailable(f"The {name} backend cannot run here: {why}")
    return backend


def evaluate_missing(package: TaskPackage) -> Verdict:
    """The verdict of a run that submitted nothing."""
    return Verdict(task_id=package.task_id, passed=False, failed_stage="no_submission")


class _Trial:
    """The gates of one evaluation as they run; `fail` ends it at a stage."""

    def __init__(self, package: TaskPackage, submission: SubmissionFile, backend: str) -> None:
        self.verdict = Verdict(
            task_id=package.task_id,
            passed=False,
            submission_sha256=submission.digest(),
            backend=backend,
        )

    def record(self, stage: str, result: GateResult) -> bool:
        self.verdict.gates[stage] = result
        if not result.passed and not self.verdict.failed_stage:
            self.verdict.failed_stage = stage  # type: ignore[assignment]  # one of STAGES
        return result.passed


def _artifact(
    package: TaskPackage, submission: SubmissionFile
) -> tuple[str | None, dict[str, float], list[str]]:
    """(model text, parameter overrides, constraint problems) of a submission."""
    task = package.task
    if task.task_type != "model_tuning":
        text = submission.final_model
        problems = [] if text is None else gates.complete_source_problems(text, task.model_name)
        return text, {}, problems
    problems = gates.parameter_problems(
        submission.parameter_set,
        task.tunable_parameters or [],
        {n: (r.min, r.max) for n, r in (task.parameter_ranges or {}).items()},
    )
    frozen = task.initial_model or ""
    if submission.final_model is not None and submission.final_model.strip() != frozen.strip():
        problems.append("a tuning task's model is frozen: submit parameter_set, not a new model")
    return frozen, dict(submission.parameter_set or {}), problems


def evaluate(
    package: TaskPackage,
    submission: SubmissionFile,
    *,
    backend: str = "rumoca",
    work_dir: Path,
) -> Verdict:
    """Judge `submission` for `package` on `backend`, working in `work_dir` (created if needed)."""
    started = time.perf_counter()
    runner = usable_backend(backend)
    trial = _Trial(package, submission, runner.name)
    try:
        _run_gates(trial, package, submission, runner, Path(work_dir))
    finally:
        trial.verdict.elapsed_s = time.perf_counter() - started
    return trial.verdict


def _run_gates(
    trial: _Trial,
    package: TaskPackage,
    submission: SubmissionFile,
    runner: Backend,
    work_dir: Path,
) -> None:
    task, contract = package.task, package.contract
    text, parameters, constraint_problems = _artifact(package, submission)
    if text is None:
        trial.record(
            "interface", GateResult(passed=False, detail="the submission has no final_model")
        )
        return
    found = gates.declaration_problems(text, task.model_name)
    found = found or gates.interface_text_problems(text, contract.interface)
    if not trial.record("interface", gates.gate(found, f"declares model {task.model_name}")):
        return
    if not trial.record("constraints", gates.gate(constraint_problems, "constraints hold")):
        return
    source = gates.model_source(
        _write_model(work_dir, task.model_name, text), task.model_name, package.library
    )
    checked, check = _guarded_check(runner, source)
    if not trial.record("check", checked):
        return
    settings = SimulationSettings(
        stop_time=task.stop_time, intervals=task.intervals, parameters=parameters
    )
    simulated, result = _guarded_simulation(runner, source, settings)
    if not trial.record("simulate", simulated):
        return
    trial.verdict.executable = True
    names = gates.interface_name_problems(contract.interface, result.series, _parameters_of(check))
    if names:
        trial.record("interface", gates.gate(names, ""))
        return
    metrics = [*contract.metrics, *package.target_metrics()]
    if not metrics:
        # fail closed: a contract that measures nothing cannot vouch for the behaviour
        unjudged = "the contract has no behaviour metrics, so the behaviour cannot be judged"
        trial.record("behaviour", GateResult(passed=False, detail=unjudged))
        return
    trial.verdict.metrics = _behaviour(package, metrics, runner, source, parameters, result)
    failed = [m.detail for m in trial.verdict.metrics if not m.passed]
    trial.record("behaviour", gates.gate(failed, f"{len(metrics)} metric(s) met"))
    trial.verdict.passed = not trial.verdict.failed_stage


def _write_model(work_dir: Path, model_name: str, text: str) -> Path:
    """The submitted text, exactly, as the only file of a fresh folder in work_dir."""
    folder = work_dir / "submission"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{model_name.rsplit('.', 1)[-1]}.mo"
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _guarded_check(runner: Backend, source: gates.ModelSource) -> tuple[GateResult, CheckResult]:
    try:
        return gates.check_gate(runner, source)
    except Exception as error:  # a backend crash on this model is this model's check failure
        failed = CheckResult(ok=False, model=source.model, backend=runner.name)
        return GateResult(passed=False, detail=f"the {runner.name} check crashed: {error}"), failed


def _guarded_simulation(
    runner: Backend, source: gates.ModelSource, settings: SimulationSettings
) -> tuple[GateResult, SimulationResult]:
    try:
        return gates.simulate_gate(runner, source, settings)
    except Exception as error:
        failed = SimulationResult(
            ok=False, model=source.model, backend=runner.name, settings=settings
        )
        return GateResult(passed=False, detail=f"the {runner.name} simulation crashed: {error}"), (
            failed
        )


def _parameters_of(check: CheckResult) -> list[str] | None:
    """The model's parameter names when the backend lists its structure's names (rumoca)."""
    structure = check.structure
    if structure is None or not (structure.parameters or structure.states or structure.algebraics):
        return None
    return list(structure.parameters)


def _behaviour(
    package: TaskPackage,
    metrics: list[Metric],
    runner: Backend,
    source: gates.ModelSource,
    parameters: dict[str, float],
    default: SimulationResult,
) -> list[MetricResult]:
    """Every metric on its scenario's run (the default run is the S gate's)."""
    by_scenario: dict[str, list[Metric]] = defaultdict(list)
    for metric in metrics:
        by_scenario[metric.scenario].append(metric)
    measured: list[MetricResult] = []
    for name, chosen in by_scenario.items():
        result = default
        if name != DEFAULT_SCENARIO:
            scenario = package.contract.scenario(name)
            settings = SimulationSettings(
                stop_time=scenario.stop_time,
                intervals=scenario.intervals,
                parameters={**scenario.parameters, **parameters},
            )
            ran, result = _guarded_simulation(runner, source, settings)
            if not ran.passed:
                detail = f"scenario {name!r} does not run: {ran.detail}"
                measured += [
                    MetricResult(metric=m.model_dump(mode="json"), passed=False, detail=detail)
                    for m in chosen
                ]
                continue
        measured += [measure(metric, result) for metric in chosen]
    return measured
