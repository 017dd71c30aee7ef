"""Simulating task models on rumoca and turning reference runs into metric targets.

The same judging is used to verify the built set: references and known-valid answers must meet
every metric, off-target variants must miss at least one (B's evaluator is the product's judge;
this one only keeps the authoring honest).
"""

from __future__ import annotations

import itertools
import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench_plugins.modelica import observables
from workbench_plugins.modelica.backend_base import ModelSource, SimulationSettings
from workbench_plugins.modelica.backends import backend_named

LIBRARY = Path(__file__).resolve().parents[1] / "library"


@dataclass
class Outcome:
    """What one model text did: the stage it failed at ("" if none) and its trajectories."""

    failed_stage: str
    message: str = ""
    time: list[float] = field(default_factory=list)
    series: dict[str, list[float]] = field(default_factory=dict)
    elapsed_s: float = 0.0


def library_files() -> list[Path]:
    return sorted(LIBRARY.glob("*.mo"))


def run_model(
    text: str, model: str, stop_time: float, intervals: int, parameters: dict[str, float]
) -> Outcome:
    """Check, then simulate `text` (with the component library loaded) on rumoca."""
    backend = backend_named("rumoca")
    with tempfile.TemporaryDirectory(prefix="wb-task-") as folder:
        path = Path(folder) / f"{model}.mo"
        path.write_text(text, encoding="utf-8")
        source = ModelSource(files=[path, *library_files()], model=model)
        checked = backend.check(source)
        if not checked.ok:
            return Outcome("check", "; ".join(d.message for d in checked.diagnostics))
        settings = SimulationSettings(
            stop_time=stop_time, intervals=intervals, parameters=parameters
        )
        result = backend.simulate(source, settings)
    if not result.ok:
        message = "; ".join(d.message for d in result.diagnostics)
        return Outcome("simulate", message, elapsed_s=result.elapsed_s)
    return Outcome("", "", result.time, result.series, result.elapsed_s)


def _sig(value: float) -> float:
    return float(f"{value:.6g}")


def _span(run: Outcome, variable: str) -> float:
    values = run.series[variable]
    return max(values) - min(values)


def fill(template: dict[str, Any], run: Outcome) -> dict[str, Any]:
    """A metric with its target/limit computed from the reference run."""
    metric = dict(template)
    variable = metric["variable"]
    if variable not in run.series:
        raise ValueError(f"reference has no variable {variable!r}")
    kind = metric["type"]
    span = _span(run, variable)
    if kind in ("value_at_time", "steady_state"):
        value = _measure(metric, run)
        metric["target"] = _sig(value)
        metric.setdefault("tolerance", _sig(max(0.025 * span + 0.001 * abs(value), 1e-9)))
    elif kind == "monotonic":
        metric.setdefault("tolerance", _sig(1e-4 * span))
    elif kind == "settling_time":
        step = (run.time[-1] - run.time[0]) / (len(run.time) - 1)
        metric["max"] = _sig(_measure(metric, run) * 1.15 + 2 * step)
    elif kind == "overshoot" and "max" not in metric:
        metric["max"] = _sig(_measure(metric, run) + 0.05)
    return metric


def _measure(metric: dict[str, Any], run: Outcome) -> float:
    kind = metric["type"]
    variable = metric["variable"]
    if kind == "value_at_time":
        spec: Any = observables.ValueAtTime(variable=variable, time=metric["time"])
    elif kind == "steady_state":
        spec = observables.SteadyState(variable=variable, fraction=metric.get("fraction", 0.1))
    elif kind == "settling_time":
        spec = observables.SettlingTime(variable=variable, band=metric.get("band", 0.02))
    elif kind == "overshoot":
        spec = observables.Overshoot(variable=variable)
    else:
        raise ValueError(f"no measurement for {kind}")
    value = observables.evaluate(spec, run.time, run.series).value
    return math.inf if value is None else float(value)


def meets(metric: dict[str, Any], run: Outcome) -> tuple[bool, str]:
    """(holds, how far) for one filled metric on a run."""
    variable = metric["variable"]
    if variable not in run.series:
        return False, f"no variable {variable}"
    kind = metric["type"]
    values = run.series[variable]
    if kind == "monotonic":
        sign = 1.0 if metric["direction"] == "increasing" else -1.0
        worst = min(sign * (b - a) for a, b in itertools.pairwise(values))
        return worst >= -metric.get("tolerance", 0.0), f"worst step {worst:.3g}"
    if kind == "bounds":
        low, high = min(values), max(values)
        ok = low >= metric.get("min", -math.inf) and high <= metric.get("max", math.inf)
        return ok, f"range [{low:.4g}, {high:.4g}]"
    value = _measure(metric, run)
    if kind in ("value_at_time", "steady_state"):
        error = abs(value - metric["target"])
        return error <= metric["tolerance"], f"{value:.5g} vs {metric['target']:.5g}"
    return value <= metric["max"], f"{value:.4g} <= {metric['max']:.4g}"
