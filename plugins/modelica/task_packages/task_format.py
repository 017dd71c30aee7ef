"""The public task JSON of the Modelica Agent Workflow Benchmark (v0.2 preview), validated.

Exactly the public schema: the listed properties and no other, with the rules by task type
(repair: initial_model; generation: requirements; tuning: initial_model, tunable_parameters,
target_metrics and optional parameter_ranges). Any file in that format loads, ours or the public
samples; a bad one is refused with the field named and what to write instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

BENCHMARK = "Modelica Agent Workflow Benchmark"
TaskType = Literal["model_repair", "model_generation", "model_tuning"]
PROFILE_OF: dict[str, Literal["repair", "generation", "tuning"]] = {
    "model_repair": "repair",
    "model_generation": "generation",
    "model_tuning": "tuning",
}
_MODEL_NAME = r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$"


class TaskFormatError(ValueError):
    """A task file that is not in the public format; the message names the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Simulate(_Strict):
    stop_time: float = Field(gt=0)
    intervals: int = Field(ge=1)


class Verification(_Strict):
    tool: Literal["OpenModelica"]
    check_model: bool
    simulate: Simulate


class ParameterRange(_Strict):
    min: float
    max: float

    @model_validator(mode="after")
    def _ordered(self) -> ParameterRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min:g} is above max {self.max:g}")
        return self


class PublicTask(_Strict):
    """One task as an agent sees it. `public_json()` gives it back in the public format."""

    task_id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    benchmark: Literal["Modelica Agent Workflow Benchmark"]
    benchmark_version: str = Field(min_length=1)
    split: Literal["public_demo", "hidden_official_v0.1", "hidden_official_v0.2"]
    task_type: TaskType
    difficulty: Literal["easy", "medium", "hard"]
    model_name: str = Field(pattern=_MODEL_NAME)
    workflow_goal: str = Field(min_length=1)
    verification: Verification
    acceptance: list[str] = Field(min_length=1)
    initial_model: str | None = None
    requirements: list[str] | None = None
    tunable_parameters: list[str] | None = None
    target_metrics: list[dict[str, Any]] | None = None
    parameter_ranges: dict[str, ParameterRange] | None = None

    @property
    def profile(self) -> Literal["repair", "generation", "tuning"]:
        return PROFILE_OF[self.task_type]

    @property
    def stop_time(self) -> float:
        return self.verification.simulate.stop_time

    @property
    def intervals(self) -> int:
        return self.verification.simulate.intervals

    @model_validator(mode="after")
    def _by_type(self) -> PublicTask:
        """The rules by task type: what each one needs, and what it must not carry."""
        given = {name for name in _TYPE_FIELDS if getattr(self, name) is not None}
        needed, allowed = _BY_TYPE[self.task_type]
        missing = sorted(needed - given)
        if missing:
            raise ValueError(f"a {self.task_type} task needs {', '.join(missing)}")
        foreign = sorted(given - allowed)
        if foreign:
            raise ValueError(f"a {self.task_type} task must not carry {', '.join(foreign)}")
        if self.initial_model is not None and not self.initial_model.strip():
            raise ValueError("initial_model is empty; give the model's full source")
        if self.requirements is not None and not self.requirements:
            raise ValueError("requirements is empty; list at least one requirement")
        if self.task_type == "model_tuning":
            self._check_tuning()
        return self

    def _check_tuning(self) -> None:
        tunable = self.tunable_parameters or []
        if not tunable:
            raise ValueError("tunable_parameters is empty; name at least one parameter")
        if not self.target_metrics:
            raise ValueError("target_metrics is empty; give at least one public target")
        strays = sorted(set(self.parameter_ranges or {}) - set(tunable))
        if strays:
            raise ValueError(
                f"parameter_ranges names {', '.join(strays)}, which are not tunable_parameters"
            )
        for number, metric in enumerate(self.target_metrics):
            if not isinstance(metric.get("type"), str) or not isinstance(
                metric.get("variable"), str
            ):
                raise ValueError(f"target_metrics[{number}] needs a 'type' and a 'variable'")

    def public_json(self) -> dict[str, Any]:
        """The task in the public format (the properties given, nothing added)."""
        return self.model_dump(mode="json", exclude_none=True)


_TYPE_FIELDS = (
    "initial_model",
    "requirements",
    "tunable_parameters",
    "target_metrics",
    "parameter_ranges",
)
_BY_TYPE: dict[str, tuple[set[str], set[str]]] = {  # (needed, allowed)
    "model_repair": ({"initial_model"}, {"initial_model"}),
    "model_generation": ({"requirements"}, {"requirements"}),
    "model_tuning": (
        {"initial_model", "tunable_parameters", "target_metrics"},
        {"initial_model", "tunable_parameters", "target_metrics", "parameter_ranges"},
    ),
}


def load_public_task(source: Path | dict[str, Any]) -> PublicTask:
    """A public task from a JSON file or an already parsed object; TaskFormatError if bad."""
    where = str(source) if isinstance(source, Path) else "the task object"
    data: Any = source
    if isinstance(source, Path):
        try:
            data = json.loads(source.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise TaskFormatError(f"No task file at {source}.") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise TaskFormatError(
                f"{source} is not valid JSON ({error}); a task file is one JSON object."
            ) from None
    if not isinstance(data, dict):
        raise TaskFormatError(f"{where} must be a JSON object, not {type(data).__name__}.")
    try:
        return PublicTask.model_validate(data)
    except ValidationError as error:
        raise TaskFormatError(explain(error, f"{where} is not a public task")) from None


def explain(error: ValidationError, headline: str) -> str:
    """A pydantic error as one message naming every field that is wrong, and what it got."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"])
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "is not a property of the format; remove it"
        elif item["type"] == "missing":
            message = "is required"
        elif field and item["type"] not in ("model_type", "dict_type", "value_error"):
            message += f" (got {json.dumps(item.get('input'), default=str)[:80]})"
        problems.append(f"{field}: {message}" if field else message)
    return f"{headline}: " + "; ".join(problems) + "."


def workspace_files(
    public: PublicTask, library: list[Path], library_root: Path | None = None
) -> dict[str, str]:
    """An agent's initial workspace files: the initial model (repair, tuning) as
    `<model_name>.mo`, and each library file as `library/<path under library_root>`."""
    files: dict[str, str] = {}
    if public.initial_model is not None:
        files[f"{public.model_name.rsplit('.', 1)[-1]}.mo"] = public.initial_model
    for path in library:
        relative = (
            Path(path).relative_to(library_root) if library_root is not None else Path(path.name)
        )
        files[f"library/{relative.as_posix()}"] = Path(path).read_text(encoding="utf-8")
    return files
