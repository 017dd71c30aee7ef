"""The benchmark-owned contract of one task: what the evaluator checks beyond the public task.

Interface names the submitted model must declare, scenarios (stop time, intervals, parameter
changes), private behaviour metrics, the known-valid answer and deliberately off-target (executable
but behaviourally wrong) variants. It never reaches an agent's workspace. Metric field names are
the observables' (`workbench_plugins.modelica.observables`), so one measurement code serves both.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_SCENARIO = "default"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Metric(_Strict):
    variable: str = Field(min_length=1)
    scenario: str = DEFAULT_SCENARIO
    about: str = ""  # what the metric stands for, in words (reports)
    start: float | None = None  # measuring window (default: the whole run)
    end: float | None = None


class ValueAtTimeMetric(_Metric):
    type: Literal["value_at_time"]
    time: float
    target: float
    tolerance: float = Field(ge=0)


class MonotonicMetric(_Metric):
    type: Literal["monotonic"]
    direction: Literal["increasing", "decreasing"] = "increasing"
    tolerance: float = Field(0.0, ge=0)


class SettlingTimeMetric(_Metric):
    type: Literal["settling_time"]
    band: float = Field(0.02, gt=0)
    max: float = Field(gt=0)  # seconds from the window start


class OvershootMetric(_Metric):
    type: Literal["overshoot"]
    max: float = Field(ge=0)  # fraction of the step to the final value


class SteadyStateMetric(_Metric):
    type: Literal["steady_state"]
    target: float
    tolerance: float = Field(ge=0)
    fraction: float = Field(0.1, gt=0, le=1)


class BoundsMetric(_Metric):
    type: Literal["bounds"]
    min: float | None = None
    max: float | None = None

    @model_validator(mode="after")
    def _some_bound(self) -> BoundsMetric:
        if self.min is None and self.max is None:
            raise ValueError("a bounds metric needs min, max or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"bounds min {self.min:g} is above max {self.max:g}")
        return self


Metric = Annotated[
    ValueAtTimeMetric
    | MonotonicMetric
    | SettlingTimeMetric
    | OvershootMetric
    | SteadyStateMetric
    | BoundsMetric,
    Field(discriminator="type"),
]
METRIC_KINDS = (
    "value_at_time",
    "monotonic",
    "settling_time",
    "overshoot",
    "steady_state",
    "bounds",
)


class Scenario(_Strict):
    name: str = Field(min_length=1)
    stop_time: float = Field(gt=0)
    intervals: int = Field(ge=1)
    parameters: dict[str, float] = Field(default_factory=dict)


class Interface(_Strict):
    variables: list[str] = Field(default_factory=list)
    parameters: list[str] = Field(default_factory=list)


class ModelAnswer(_Strict):
    final_model: str = Field(min_length=1)


class ParameterAnswer(_Strict):
    parameter_set: dict[str, float] = Field(min_length=1)


Answer = ModelAnswer | ParameterAnswer


class OffTarget(_Strict):
    name: str = Field(min_length=1)
    about: str = ""
    submission: Answer


class Contract(_Strict):
    task_id: str = Field(min_length=1)
    domain: Literal["electrical", "mechanical", "thermal", "control"]
    intended_failure_stage: Literal["check", "simulate"] | None = None
    interface: Interface = Field(default_factory=Interface)
    scenarios: list[Scenario] = Field(min_length=1)
    metrics: list[Metric] = Field(default_factory=list)
    known_valid: Answer
    off_target: list[OffTarget] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> Contract:
        names = [scenario.name for scenario in self.scenarios]
        if DEFAULT_SCENARIO not in names:
            raise ValueError(f"scenarios need one named {DEFAULT_SCENARIO!r}")
        doubles = sorted({name for name in names if names.count(name) > 1})
        if doubles:
            raise ValueError(f"scenario names repeat: {', '.join(doubles)}")
        for number, metric in enumerate(self.metrics):
            if metric.scenario not in names:
                raise ValueError(
                    f"metrics[{number}] names scenario {metric.scenario!r}; "
                    f"the scenarios are {', '.join(names)}"
                )
        variants = [variant.name for variant in self.off_target]
        if len(set(variants)) != len(variants):
            raise ValueError("off_target names repeat; give each variant its own name")
        return self

    def scenario(self, name: str = DEFAULT_SCENARIO) -> Scenario:
        return next(scenario for scenario in self.scenarios if scenario.name == name)
