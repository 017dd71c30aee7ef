"""The gates an agent may learn when it submits: I, M, C and S from the public task only.

The harness's `submit` refuses a candidate with these problems, so an agent is never told about
the private contract (its interface names, scenarios or metrics): the model must be declared and
complete, a tuning assignment tunable and in range, and the model must check and simulate at the
task's own stop time and intervals, loaded with the task's library files exactly as the
evaluator loads them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from workbench_plugins.modelica.backend_base import BackendUnavailable, SimulationSettings
from workbench_plugins.modelica.evaluator import gates
from workbench_plugins.modelica.evaluator.verdict import usable_backend
from workbench_plugins.modelica.task_packages.submissions import LIBRARY_FOLDER, main_model_text
from workbench_plugins.modelica.task_packages.task_format import PublicTask, workspace_files


class SubmitTask(Protocol):
    """What public_problems needs of a task (harness.Task has it all)."""

    @property
    def model_name(self) -> str: ...
    @property
    def profile(self) -> str: ...
    @property
    def files(self) -> Mapping[str, str]: ...
    @property
    def tunable_parameters(self) -> Sequence[str]: ...
    @property
    def parameter_ranges(self) -> Mapping[str, tuple[float, float]]: ...
    @property
    def stop_time(self) -> float: ...
    @property
    def intervals(self) -> int: ...


@dataclass(frozen=True)
class TaskView:
    """A public task as `public_problems` sees it, without the harness (validation uses it)."""

    model_name: str
    profile: str
    files: dict[str, str]
    stop_time: float
    intervals: int
    tunable_parameters: list[str] = field(default_factory=list)
    parameter_ranges: dict[str, tuple[float, float]] = field(default_factory=dict)


def task_view(public: PublicTask, library: list[Path], library_root: Path | None) -> TaskView:
    return TaskView(
        model_name=public.model_name,
        profile=public.profile,
        files=workspace_files(public, library, library_root),
        stop_time=public.stop_time,
        intervals=public.intervals,
        tunable_parameters=list(public.tunable_parameters or []),
        parameter_ranges={n: (r.min, r.max) for n, r in (public.parameter_ranges or {}).items()},
    )


def _artifact(
    task: SubmitTask, content: Mapping[str, Any]
) -> tuple[str | None, dict[str, float], list[str]]:
    """(model text, parameters, problems) of a candidate's content."""
    if task.profile == "tuning":
        parameters = content.get("parameters") or {}
        found = gates.parameter_problems(parameters, task.tunable_parameters, task.parameter_ranges)
        text = main_model_text(dict(task.files), task.model_name)
        return text, dict(parameters), [f"constraints: {problem}" for problem in found]
    files = {str(k): str(v) for k, v in (content.get("files") or {}).items()}
    text = main_model_text(files, task.model_name)
    if text is None:
        return None, {}, [f"interface: no submitted file declares `model {task.model_name}`"]
    found = gates.complete_source_problems(text, task.model_name)
    return text, {}, [f"constraints: {problem}" for problem in found]


def public_problems(
    task: SubmitTask, content: Mapping[str, Any], backend: str = "rumoca"
) -> list[str]:
    """What keeps this candidate from being a valid submission, by gate (none: it may be
    submitted). Only public knowledge: never the contract's metrics or scenarios."""
    text, parameters, problems = _artifact(task, content)
    if problems or text is None:
        return problems or ["interface: the task's model is missing from its files"]
    try:
        runner = usable_backend(backend)
    except BackendUnavailable as error:
        return [f"check: {error}"]
    with tempfile.TemporaryDirectory(prefix="wb-submit-check-") as folder:
        root = Path(folder)
        model_file = root / f"{task.model_name.rsplit('.', 1)[-1]}.mo"
        model_file.write_text(text, encoding="utf-8", newline="")
        library = []
        for name, library_text in sorted(task.files.items()):
            if name.startswith(LIBRARY_FOLDER):
                path = root / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(library_text, encoding="utf-8", newline="")
                library.append(path)
        source = gates.model_source(model_file, task.model_name, library)
        checked, _ = gates.check_gate(runner, source)
        if not checked.passed:
            return [f"check: {_relative(checked.detail, root)}"]
        settings = SimulationSettings(
            stop_time=task.stop_time, intervals=task.intervals, parameters=parameters
        )
        simulated, _ = gates.simulate_gate(runner, source, settings)
        if not simulated.passed:
            return [f"simulate: {_relative(simulated.detail, root)}"]
    return []


def _relative(detail: str, root: Path) -> str:
    """Messages name files as the agent knows them (`Cooling.mo:7:26`), not the scratch copy."""
    for prefix in {str(root.resolve()), str(root)}:
        detail = detail.replace(prefix + "/", "")
    return detail
