"""Task packages on disk: `tasks/<id>.json` (public), `contracts/<id>.json` (benchmark-owned)
and `library/**.mo` (our component library, loaded with every model).

The root is $WORKBENCH_MODELICA_BENCHMARK, else the repository's benchmarks/modelica. Loading
checks that a task and its contract agree (ids, answer kinds, scenarios, public targets), so a
mistake in a package is found when it loads, not halfway through a benchmark run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from workbench_plugins.modelica.task_packages.contract import (
    DEFAULT_SCENARIO,
    Answer,
    Contract,
    Metric,
    ModelAnswer,
    ParameterAnswer,
)
from workbench_plugins.modelica.task_packages.task_format import (
    PublicTask,
    TaskFormatError,
    explain,
    load_public_task,
)

ENVIRONMENT = "WORKBENCH_MODELICA_BENCHMARK"
_METRIC = TypeAdapter(Metric)


class PackageError(ValueError):
    """A task package that cannot be used; the message names the package and the problem."""


@dataclass(frozen=True)
class TaskPackage:
    task: PublicTask
    contract: Contract
    task_path: Path
    contract_path: Path
    library: list[Path] = field(default_factory=list)
    library_root: Path | None = None  # the folder `library` paths are relative to

    @property
    def task_id(self) -> str:
        return self.task.task_id

    def target_metrics(self) -> list[Metric]:
        """Tuning's public targets as metrics on the default scenario (others: none)."""
        return [_METRIC.validate_python(target) for target in self.task.target_metrics or []]


@dataclass(frozen=True)
class PackageProblem:
    task_id: str  # the task file's name when the file itself cannot be read
    path: Path
    message: str


def benchmark_root() -> Path:
    """$WORKBENCH_MODELICA_BENCHMARK, else the repository's benchmarks/modelica."""
    configured = os.environ.get(ENVIRONMENT, "")
    if configured:
        return Path(configured).expanduser()
    return Path(__file__).resolve().parents[3] / "benchmarks" / "modelica"


def library_files(root: Path) -> list[Path]:
    folder = Path(root) / "library"
    return sorted(folder.rglob("*.mo")) if folder.is_dir() else []


def scan_packages(root: Path | None = None) -> tuple[list[TaskPackage], list[PackageProblem]]:
    """Every package under `root` that loads, and a problem for each one that does not."""
    base = Path(root) if root is not None else benchmark_root()
    task_files = sorted((base / "tasks").glob("*.json"))
    if not task_files:
        raise PackageError(
            f"No task files in {base / 'tasks'}. Point --root (or ${ENVIRONMENT}) at a folder "
            "holding tasks/<task_id>.json and contracts/<task_id>.json."
        )
    library = library_files(base)
    packages: list[TaskPackage] = []
    problems: list[PackageProblem] = []
    for path in task_files:
        try:
            packages.append(_load(path, base, library))
        except PackageError as error:
            problems.append(PackageProblem(path.stem, path, str(error)))
    return packages, problems


def load_packages(root: Path | None = None) -> list[TaskPackage]:
    """Every package under `root`; PackageError naming each one that does not load."""
    packages, problems = scan_packages(root)
    if problems:
        raise PackageError("\n".join(problem.message for problem in problems))
    return packages


def load_package(task_id: str, root: Path | None = None) -> TaskPackage:
    base = Path(root) if root is not None else benchmark_root()
    path = base / "tasks" / f"{task_id}.json"
    if not path.is_file():
        known = sorted(p.stem for p in (base / "tasks").glob("*.json"))
        raise PackageError(
            f"No task {task_id!r} in {base / 'tasks'} (tasks: {', '.join(known) or 'none'})."
        )
    return _load(path, base, library_files(base))


def _load(path: Path, base: Path, library: list[Path]) -> TaskPackage:
    try:
        task = load_public_task(path)
    except TaskFormatError as error:
        raise PackageError(f"Task {path.stem}: {error}") from None
    contract_path = base / "contracts" / f"{task.task_id}.json"
    if not contract_path.is_file():
        raise PackageError(f"Task {task.task_id}: no contract at {contract_path}.")
    try:
        contract = Contract.model_validate_json(contract_path.read_text(encoding="utf-8"))
    except ValidationError as error:
        raise PackageError(
            explain(error, f"Task {task.task_id}: contract {contract_path}")
        ) from None
    package = TaskPackage(task, contract, path, contract_path, library, base / "library")
    problems = consistency_problems(package)
    if problems:
        raise PackageError(f"Task {task.task_id}: " + "; ".join(problems) + ".")
    return package


def consistency_problems(package: TaskPackage) -> list[str]:
    """Where the task and its contract disagree, in words (none: they agree)."""
    task, contract = package.task, package.contract
    problems = []
    if package.task_path.stem != task.task_id:
        problems.append(f"the file is named {package.task_path.name} but its task_id differs")
    if contract.task_id != task.task_id:
        problems.append(f"the contract is for task {contract.task_id!r}")
    repair = task.task_type == "model_repair"
    if repair and contract.intended_failure_stage is None:
        problems.append("a repair contract needs intended_failure_stage (check or simulate)")
    if not repair and contract.intended_failure_stage is not None:
        problems.append("only repair contracts have an intended_failure_stage")
    problems += _answer_problems(package)
    default = contract.scenario(DEFAULT_SCENARIO)
    if (default.stop_time, default.intervals) != (task.stop_time, task.intervals):
        problems.append(
            f"scenario 'default' runs to {default.stop_time:g} s in {default.intervals} "
            f"intervals; the task's verification says {task.stop_time:g} s, {task.intervals}"
        )
    if default.parameters:
        problems.append("scenario 'default' must change no parameter")
    tunable = set(task.tunable_parameters or [])
    for scenario in contract.scenarios:
        if overlap := sorted(tunable & set(scenario.parameters)):
            problems.append(f"scenario {scenario.name!r} sets tunable {', '.join(overlap)}")
    for number, target in enumerate(task.target_metrics or []):
        try:
            _METRIC.validate_python(target)
        except ValidationError as error:
            problems.append(explain(error, f"target_metrics[{number}] is no known metric"))
    return problems


def _answer_problems(package: TaskPackage) -> list[str]:
    task, contract = package.task, package.contract
    expected: type[Answer] = ParameterAnswer if task.task_type == "model_tuning" else ModelAnswer
    wording = "a parameter_set" if expected is ParameterAnswer else "a final_model"
    problems = []
    if not isinstance(contract.known_valid, expected):
        problems.append(f"known_valid must be {wording} for a {task.task_type} task")
    for variant in contract.off_target:
        if not isinstance(variant.submission, expected):
            problems.append(f"off_target {variant.name!r} must submit {wording}")
    if task.task_type != "model_repair" and not contract.off_target:
        problems.append(f"a {task.task_type} contract needs at least one off_target variant")
    return problems
