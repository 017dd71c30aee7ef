"""How a benchmark task is written down before it is built: a reference model plus what derives
from it (faults, brief, tuning start values), metric templates and off-target edits.

Targets are never typed in by hand: the build simulates the reference (and the known-valid
parameter set) and fills them in, so every number in a contract comes from an executable model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

BENCHMARK = "Modelica Agent Workflow Benchmark"
VERSION = "v0.2-preview"
SPLIT = "hidden_official_v0.2"
TYPES = {"repair": "model_repair", "generation": "model_generation", "tuning": "model_tuning"}

Edit = tuple[str, str]


@dataclass
class OffTarget:
    """An executable but behaviourally wrong submission: text edits of the reference (repair,
    generation) or a parameter set (tuning)."""

    name: str
    about: str
    edits: list[Edit] = field(default_factory=list)
    parameters: dict[str, float] = field(default_factory=dict)


@dataclass
class TaskDef:
    task_id: str
    difficulty: str
    model_name: str
    workflow_goal: str
    reference: str
    stop_time: float
    intervals: int
    acceptance: list[str]
    variables: list[str]
    parameters: list[str]
    metrics: list[dict[str, Any]]
    scenarios: dict[str, dict[str, float]] = field(default_factory=dict)
    off_targets: list[OffTarget] = field(default_factory=list)
    # repair
    faults: list[Edit] = field(default_factory=list)
    stage: str | None = None
    # generation
    requirements: list[str] = field(default_factory=list)
    # tuning: name -> (min, max); start values make the initial model, public targets templates
    tunable: dict[str, tuple[float, float]] = field(default_factory=dict)
    start_values: dict[str, float] = field(default_factory=dict)
    public_targets: list[dict[str, Any]] = field(default_factory=list)

    @property
    def workflow(self) -> str:
        return self.task_id.split("_")[1]

    @property
    def task_type(self) -> str:
        return TYPES[self.workflow]

    @property
    def domain(self) -> str:
        return self.task_id.split("_")[2]


def apply_edits(text: str, edits: list[Edit], what: str) -> str:
    """`text` with each (old, new) replaced exactly once; a stale edit is a build error."""
    for old, new in edits:
        count = text.count(old)
        if count != 1:
            raise ValueError(f"{what}: edit {old!r} matches {count} times (needs exactly 1)")
        text = text.replace(old, new)
    return text


_PARAMETER = r"(parameter\s+Real\s+{name}\s*=\s*)([-+0-9.eE]+)"


def parameter_value(text: str, name: str) -> float:
    """The literal value of `parameter Real name = value` in a model text."""
    found = re.search(_PARAMETER.format(name=re.escape(name)), text)
    if found is None:
        raise ValueError(f"no literal parameter {name!r} in the reference")
    return float(found.group(2))


def with_parameter_values(text: str, values: dict[str, float]) -> str:
    """`text` with the literal values of the named parameters replaced."""
    for name, value in values.items():
        pattern = _PARAMETER.format(name=re.escape(name))
        found = re.search(pattern, text)
        if found is None:
            raise ValueError(f"no literal parameter {name!r} to set")
        text = text[: found.start(2)] + f"{value:g}" + text[found.end(2) :]
    return text


def vat(variable: str, time: float, scenario: str = "default") -> dict[str, Any]:
    """value_at_time template (target and tolerance come from the reference run)."""
    return {"type": "value_at_time", "variable": variable, "time": time, "scenario": scenario}


def steady(variable: str, scenario: str = "default") -> dict[str, Any]:
    return {"type": "steady_state", "variable": variable, "scenario": scenario}


def mono(variable: str, direction: str = "increasing", scenario: str = "default") -> dict[str, Any]:
    return {"type": "monotonic", "variable": variable, "direction": direction, "scenario": scenario}


def settle(variable: str, scenario: str = "default", band: float = 0.02) -> dict[str, Any]:
    """settling_time template; its max is the reference's settling time plus a margin."""
    return {"type": "settling_time", "variable": variable, "band": band, "scenario": scenario}


def overshoot(
    variable: str, scenario: str = "default", limit: float | None = None
) -> dict[str, Any]:
    """overshoot template; max = `limit` if given, else the reference's overshoot + 0.05."""
    spec: dict[str, Any] = {"type": "overshoot", "variable": variable, "scenario": scenario}
    if limit is not None:
        spec["max"] = limit
    return spec


def bounds(
    variable: str,
    low: float | None = None,
    high: float | None = None,
    scenario: str = "default",
) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "bounds", "variable": variable, "scenario": scenario}
    if low is not None:
        spec["min"] = low
    if high is not None:
        spec["max"] = high
    return spec
