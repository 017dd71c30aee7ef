"""Behaviour metrics (gate B) measured on a simulation, with the observables' own code.

Each contract metric maps onto an observable of `workbench_plugins.modelica.observables`
(value at time, monotonic, settling time, overshoot, steady state; bounds are the minimum and
maximum extrema), so the evaluator measures exactly what the agent's tools measure.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from workbench.core.tools import ToolFailure
from workbench_plugins.modelica import observables
from workbench_plugins.modelica.backend_base import SimulationResult
from workbench_plugins.modelica.task_packages.contract import (
    BoundsMetric,
    Metric,
    MonotonicMetric,
    OvershootMetric,
    SettlingTimeMetric,
    SteadyStateMetric,
    ValueAtTimeMetric,
)


class MetricResult(BaseModel):
    metric: dict[str, Any]
    passed: bool
    detail: str


def _window(metric: Metric) -> dict[str, Any]:
    return {"variable": metric.variable, "start": metric.start, "end": metric.end}


def _value(spec: Any, result: SimulationResult) -> Any:
    return observables.evaluate(spec, result.time, result.series).value


def _within(value: float | None, target: float, tolerance: float) -> tuple[bool, str]:
    if value is None:
        return False, "no value"
    error = abs(value - target)
    return error <= tolerance, f"{value:.6g} (target {target:.6g} ± {tolerance:.3g})"


def _judge(metric: Metric, result: SimulationResult) -> tuple[bool, str]:
    """(met, the measured value in words) for one metric on one run."""
    window = _window(metric)
    if isinstance(metric, ValueAtTimeMetric):
        value = _value(observables.ValueAtTime(time=metric.time, **window), result)
        return _within(value, metric.target, metric.tolerance)
    if isinstance(metric, SteadyStateMetric):
        steady = observables.SteadyState(fraction=metric.fraction, **window)
        return _within(_value(steady, result), metric.target, metric.tolerance)
    if isinstance(metric, MonotonicMetric):
        monotonic = observables.Monotonic(
            direction=metric.direction, tolerance=metric.tolerance, **window
        )
        measured = observables.evaluate(monotonic, result.time, result.series)
        worst = measured.details.get("worst_step")
        return bool(measured.value), f"{metric.direction}: {measured.value} (worst step {worst})"
    if isinstance(metric, SettlingTimeMetric):
        settled = _value(observables.SettlingTime(band=metric.band, **window), result)
        if settled is None:
            return False, f"never settles within ±{metric.band:g} of its final value"
        return settled <= metric.max, f"settles in {settled:.4g} s (max {metric.max:g} s)"
    if isinstance(metric, OvershootMetric):
        overshoot = _value(observables.Overshoot(**window), result)
        return overshoot <= metric.max, f"overshoot {overshoot:.4g} (max {metric.max:g})"
    return _bounds(metric, result, window)


def _bounds(
    metric: BoundsMetric, result: SimulationResult, window: dict[str, Any]
) -> tuple[bool, str]:
    low = _value(observables.Extremum(kind="min", **window), result)
    high = _value(observables.Extremum(kind="max", **window), result)
    met = (metric.min is None or low >= metric.min) and (metric.max is None or high <= metric.max)
    wanted = f"[{'-inf' if metric.min is None else f'{metric.min:g}'}, " + (
        f"{'inf' if metric.max is None else f'{metric.max:g}'}]"
    )
    return met, f"range [{low:.6g}, {high:.6g}] (allowed {wanted})"


def measure(metric: Metric, result: SimulationResult) -> MetricResult:
    """One metric on one run: met or not, and why in words (a missing variable fails it)."""
    described = metric.model_dump(mode="json", exclude_none=True)
    label = f"{metric.type} {metric.variable} [{metric.scenario}]"
    try:
        met, words = _judge(metric, result)
    except ToolFailure as failure:
        return MetricResult(metric=described, passed=False, detail=f"{label}: {failure.message}")
    verdict = "met" if met else "NOT met"
    return MetricResult(metric=described, passed=met, detail=f"{label}: {words}: {verdict}")
