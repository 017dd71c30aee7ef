"""Evaluator validation (seed 003, section 5): run before the evaluator is trusted, and again
whenever it or a dependency changes.

For every package: each repair input fails at its intended stage; the known-valid answer passes,
through the same submission path an agent's takes (written as submission.json, read back); it
also passes the public submit gates the harness applies; each off-target variant (executable but
behaviourally wrong) fails the behaviour gate. A package that does not load is a failed check.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workbench_plugins.modelica.backend_base import BackendUnavailable
from workbench_plugins.modelica.evaluator.public import public_problems, task_view
from workbench_plugins.modelica.evaluator.verdict import Verdict, evaluate, usable_backend
from workbench_plugins.modelica.task_packages.contract import Answer, ModelAnswer
from workbench_plugins.modelica.task_packages.packages import (
    PackageError,
    TaskPackage,
    scan_packages,
)
from workbench_plugins.modelica.task_packages.submissions import SubmissionFile, read_submission


@dataclass(frozen=True)
class ValidationLine:
    task_id: str
    check: str
    ok: bool
    detail: str = ""

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        return f"{mark} {self.task_id}: {self.check}" + (f" ({self.detail})" if self.detail else "")


def validate(
    root: Path | None = None,
    backend: str = "rumoca",
    *,
    on_line: Callable[[ValidationLine], None] | None = None,
) -> list[ValidationLine]:
    """Every check of every package under `root`, in order; `on_line` sees each as it is made."""
    lines: list[ValidationLine] = []

    def add(line: ValidationLine) -> None:
        lines.append(line)
        if on_line is not None:
            on_line(line)

    try:
        usable_backend(backend)
        packages, problems = scan_packages(root)
    except (BackendUnavailable, PackageError) as error:
        add(ValidationLine("(all)", "task packages can be evaluated", False, str(error)))
        return lines
    for problem in problems:
        add(ValidationLine(problem.task_id, "package loads", False, problem.message))
    for package in packages:
        with tempfile.TemporaryDirectory(prefix=f"wb-validate-{package.task_id}-") as folder:
            for line in _package_checks(package, backend, Path(folder)):
                add(line)
    return lines


def _through_file(answer: Answer | SubmissionFile, folder: Path, name: str) -> SubmissionFile:
    """The answer written as an agent's submission.json and read back, as the suite reads it."""
    if isinstance(answer, SubmissionFile):
        data = answer.public_json()
    else:
        data = answer.model_dump(mode="json")
    path = folder / name / "submission.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return read_submission(path)


def _why(verdict: Verdict) -> str:
    if verdict.passed:
        return "passed every gate"
    detail = verdict.gates.get(verdict.failed_stage)
    return f"failed at {verdict.failed_stage}" + (f": {detail.detail}" if detail else "")


def _package_checks(package: TaskPackage, backend: str, folder: Path) -> list[ValidationLine]:
    task, contract = package.task, package.contract
    lines = []

    def judge(answer: Answer | SubmissionFile, name: str) -> Verdict:
        submission = _through_file(answer, folder, name)
        return evaluate(package, submission, backend=backend, work_dir=folder / name / "work")

    if task.task_type == "model_repair" and task.initial_model is not None:
        intended = contract.intended_failure_stage
        verdict = judge(SubmissionFile(final_model=task.initial_model), "initial")
        lines.append(
            ValidationLine(
                task.task_id,
                f"the initial model fails at {intended}",
                verdict.failed_stage == intended,
                _why(verdict),
            )
        )
    verdict = judge(contract.known_valid, "known_valid")
    lines.append(
        ValidationLine(
            task.task_id,
            "the known-valid answer passes",
            verdict.passed,
            "" if verdict.passed else _why(verdict),
        )
    )
    problems = public_problems(
        task_view(task, package.library, package.library_root),
        _content(contract.known_valid),
        backend,
    )
    lines.append(
        ValidationLine(
            task.task_id,
            "the known-valid answer passes the submit gates",
            not problems,
            "; ".join(problems),
        )
    )
    for variant in contract.off_target:
        verdict = judge(variant.submission, f"off_target_{len(lines)}")
        lines.append(
            ValidationLine(
                task.task_id,
                f"off-target {variant.name!r} fails the behaviour gate",
                verdict.failed_stage == "behaviour",
                _why(verdict),
            )
        )
    return lines


def _content(answer: Answer) -> dict[str, object]:
    """A harness candidate's content for an answer (what submit checks)."""
    if isinstance(answer, ModelAnswer):
        return {"files": {"answer.mo": answer.final_model}}
    return {"parameters": dict(answer.parameter_set)}


def summary(lines: list[ValidationLine], backend: str, elapsed_s: float) -> str:
    tasks = len({line.task_id for line in lines})
    held = sum(line.ok for line in lines)
    verdict = "all hold" if held == len(lines) else f"{len(lines) - held} FAILED"
    return (
        f"modelica validate on {backend}: {held}/{len(lines)} checks hold over {tasks} task(s), "
        f"{verdict} ({elapsed_s:.1f} s)"
    )
