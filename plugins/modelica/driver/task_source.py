"""Where a task run's `harness.Task` comes from (a public task file, an inline task, a brief)
and which gates `submit` checks (the evaluator's public ones, when the evaluator is installed).

The public task format belongs to `task_packages.task_format`, the gates to `evaluator` (looked up
when a run starts: without them a run still works, with the harness's own submission checks).
"""

from __future__ import annotations

import hashlib
import importlib
import re
from pathlib import Path
from types import ModuleType
from typing import Any

from workbench.core.context import AppContext
from workbench.core.tools import ToolFailure
from workbench_plugins.modelica.config import ModelicaSettings
from workbench_plugins.modelica.harness import Task, Verifier
from workbench_plugins.modelica.task_packages import task_format

GENERATED_MODEL = "GeneratedModel"  # a brief that names no model


def library_next_to(path: Path) -> list[Path]:
    """A benchmark's library (<root>/library/**.mo) for a task file in <root>/tasks/."""
    folder = Path(path).resolve().parent.parent / "library"
    if Path(path).resolve().parent.name != "tasks" or not folder.is_dir():
        return []
    return sorted(folder.rglob("*.mo"))


def task_from_public(source: Path | dict[str, Any], library: list[Path] | None = None) -> Task:
    """A run's task from the public JSON format (a file or an object), with its library files
    copied into the workspace under library/. Refused with the field named when malformed."""
    if library is None:
        library = library_next_to(source) if isinstance(source, Path) else []
    try:
        public = task_format.load_public_task(source)
    except task_format.TaskFormatError as error:
        raise ToolFailure(str(error), "Fix the task JSON (public benchmark format).") from None
    task = Task.from_benchmark(public.public_json())
    root = next((p for p in library[0].parents if p.name == "library"), None) if library else None
    files = task_format.workspace_files(public, library, root)
    return task.model_copy(update={"files": files})


def task_from_brief(brief: str, *, stop_time: float = 1.0, intervals: int = 500) -> Task:
    """A generation task from a person's brief; the model is the one the brief names
    ("model Heater ..."), else GeneratedModel."""
    text = brief.strip()
    if not text:
        raise ToolFailure("The brief is empty.", "Say what the model must be and do.")
    named = re.search(r"\bmodel\s+([A-Z]\w*)", text)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return Task(
        task_id=f"brief_{digest}",
        profile="generation",
        model_name=named.group(1) if named else GENERATED_MODEL,
        brief=text if named else f"{text}\nName the model {GENERATED_MODEL}.",
        stop_time=stop_time,
        intervals=intervals,
    )


def _evaluation() -> ModuleType | None:
    try:
        return importlib.import_module("workbench_plugins.modelica.evaluator")
    except ImportError:
        return None


def public_verifier(app: AppContext) -> Verifier | None:
    """The evaluator's public gates (interface, constraints, check, simulation) on the app's
    backend, for `Run(verify=...)`; None until the evaluator provides them."""
    module = _evaluation()
    check = getattr(module, "public_problems", None) if module is not None else None
    if check is None:
        return None
    backend = app.settings.plugin("modelica", ModelicaSettings).backend

    def verify(task: Task, content: dict[str, Any]) -> list[str]:
        return [str(problem) for problem in check(task, content, backend)]

    return verify
