"""Derived observables of a trajectory, and checking them against an invariant's condition.

An observable is a typed spec (`value_at_time`, `extremum`, `settling_time`, `overshoot`,
`steady_state`, `integral`, `monotonic`) evaluated on one variable of a simulation run. The
result is a `Measurement`; `judge` compares it with a condition (target and tolerance, or
bounds, or a required truth) and *suggests* an adjudication. The adjudication recorded in the
ledger stays the agent's (or the user's) explicit act.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from workbench.core.tools import ToolFailure


class _Spec(BaseModel):
    variable: str = Field(..., description="model variable, e.g. 'x' or 'body.v'")
    start: float | None = Field(None, description="window start time (default: run start)")
    end: float | None = Field(None, description="window end time (default: run end)")


class ValueAtTime(_Spec):
    type: Literal["value_at_time"] = "value_at_time"
    time: float


class Extremum(_Spec):
    type: Literal["extremum"] = "extremum"
    kind: Literal["max", "min", "max_abs"] = "max"


class SettlingTime(_Spec):
    type: Literal["settling_time"] = "settling_time"
    band: float = Field(0.02, gt=0, description="relative band around the final value")
    final: float | None = Field(None, description="settle towards this instead of the last value")


class Overshoot(_Spec):
    type: Literal["overshoot"] = "overshoot"
    final: float | None = Field(None, description="reference final value (default: last value)")


class SteadyState(_Spec):
    type: Literal["steady_state"] = "steady_state"
    fraction: float = Field(0.1, gt=0, le=1, description="trailing share of the window averaged")


class Integral(_Spec):
    type: Literal["integral"] = "integral"


class Monotonic(_Spec):
    type: Literal["monotonic"] = "monotonic"
    direction: Literal["increasing", "decreasing"] = "increasing"
    tolerance: float = Field(0.0, ge=0, description="allowed step against the direction")


Observable = Annotated[
    ValueAtTime | Extremum | SettlingTime | Overshoot | SteadyState | Integral | Monotonic,
    Field(discriminator="type"),
]


class Measurement(BaseModel):
    observable: dict[str, Any]
    value: float | bool | None
    at_time: float | None = None
    details: dict[str, float | bool | None] = Field(default_factory=dict)


class Condition(BaseModel):
    """phi: target +- tolerance (absolute, or relative when `relative`), bounds, or a truth."""

    target: float | None = None
    tolerance: float | None = None
    relative: bool = False
    min: float | None = None
    max: float | None = None
    equals: bool | None = None


def _window(time: np.ndarray, values: np.ndarray, spec: _Spec) -> tuple[np.ndarray, np.ndarray]:
    start = time[0] if spec.start is None else spec.start
    end = time[-1] if spec.end is None else spec.end
    keep = (time >= start - 1e-12) & (time <= end + 1e-12)
    if keep.sum() < 1:
        raise ToolFailure(
            f"The window [{start:g}, {end:g}] holds no sample of the run "
            f"[{time[0]:g}, {time[-1]:g}].",
            "Choose start/end inside the simulated interval or simulate longer.",
        )
    return time[keep], values[keep]


def evaluate(spec: Any, time: list[float], series: dict[str, list[float]]) -> Measurement:
    """Evaluate one observable spec on one run's trajectories."""
    if spec.variable not in series:
        known = ", ".join(sorted(series)) or "none"
        raise ToolFailure(
            f"The run has no variable {spec.variable!r}.", f"Variables in this run: {known}."
        )
    t_all = np.asarray(time, dtype=float)
    y_all = np.asarray(series[spec.variable], dtype=float)
    t, y = _window(t_all, y_all, spec)
    described = spec.model_dump(mode="json")
    if isinstance(spec, ValueAtTime):
        if not t_all[0] - 1e-12 <= spec.time <= t_all[-1] + 1e-12:
            raise ToolFailure(
                f"time {spec.time:g} is outside the run [{t_all[0]:g}, {t_all[-1]:g}].",
                "Simulate up to that time first.",
            )
        return Measurement(
            observable=described,
            value=float(np.interp(spec.time, t_all, y_all)),
            at_time=spec.time,
        )
    if isinstance(spec, Extremum):
        target = np.abs(y) if spec.kind == "max_abs" else y
        index = int(np.argmin(target) if spec.kind == "min" else np.argmax(target))
        return Measurement(observable=described, value=float(y[index]), at_time=float(t[index]))
    if isinstance(spec, SettlingTime):
        return _settling_time(spec, t, y, described)
    if isinstance(spec, Overshoot):
        return _overshoot(spec, t, y, described)
    if isinstance(spec, SteadyState):
        return _steady_state(spec, t, y, described)
    if isinstance(spec, Integral):
        return Measurement(
            observable=described, value=float(np.sum((y[1:] + y[:-1]) * np.diff(t)) / 2)
        )  # numpy 1.26: no trapezoid
    if isinstance(spec, Monotonic):
        steps = np.diff(y) if spec.direction == "increasing" else -np.diff(y)
        worst = float(np.min(steps)) if steps.size else 0.0
        return Measurement(
            observable=described,
            value=bool(worst >= -spec.tolerance),
            details={"worst_step": worst},
        )
    raise ToolFailure(f"Unknown observable type {getattr(spec, 'type', spec)!r}.")


def _settling_time(
    spec: SettlingTime, t: np.ndarray, y: np.ndarray, described: dict[str, Any]
) -> Measurement:
    """Time from the window start until `y` stays inside the band around its final value."""
    final = float(y[-1]) if spec.final is None else spec.final
    scale = max(abs(final), abs(final - float(y[0])), 1e-12)
    outside = np.nonzero(np.abs(y - final) > spec.band * scale)[0]
    if outside.size == 0:
        settled = float(t[0])
    elif outside[-1] == len(y) - 1:
        settled = None  # never settles inside the window
    else:
        settled = float(t[outside[-1] + 1])
    return Measurement(
        observable=described,
        value=None if settled is None else settled - float(t[0]),
        at_time=settled,
        details={"final": final, "band_abs": spec.band * scale, "settled": settled is not None},
    )


def _overshoot(
    spec: Overshoot, t: np.ndarray, y: np.ndarray, described: dict[str, Any]
) -> Measurement:
    """How far `y` went past its final value, as a share of the step from its initial value."""
    initial = float(y[0])
    final = float(y[-1]) if spec.final is None else spec.final
    step = final - initial
    if abs(step) < 1e-15:
        return Measurement(observable=described, value=0.0, details={"step": 0.0})
    beyond = (y - final) / step  # >0 where the response went past the final value
    index = int(np.argmax(beyond))
    return Measurement(
        observable=described,
        value=max(0.0, float(beyond[index])),  # relative to the step: 0.25 is 25 %
        at_time=float(t[index]),
        details={"peak": float(y[index]), "final": final, "initial": initial},
    )


def _steady_state(
    spec: SteadyState, t: np.ndarray, y: np.ndarray, described: dict[str, Any]
) -> Measurement:
    """The mean of the window's trailing share, with its spread and drift."""
    count = max(2, round(len(y) * spec.fraction))
    tail_t, tail = t[-count:], y[-count:]
    span = float(tail_t[-1] - tail_t[0]) or 1.0
    return Measurement(
        observable=described,
        value=float(np.mean(tail)),
        details={
            "spread": float(np.max(tail) - np.min(tail)),
            "drift_per_s": float((tail[-1] - tail[0]) / span),
        },
    )


def judge(measurement: Measurement, condition: Condition | dict[str, Any]) -> tuple[str, str]:
    """(suggested adjudication, why) for a measurement under a condition."""
    phi = Condition.model_validate(condition)
    value = measurement.value
    if value is None:
        return "violated", "the observable has no value (e.g. never settled in the window)"
    if phi.equals is not None:
        ok = bool(value) is phi.equals
        return ("supported" if ok else "violated"), f"value {value} (required {phi.equals})"
    if isinstance(value, bool):
        return "inconclusive", "a true/false observable needs an 'equals' condition"
    reasons = []
    ok = True
    if phi.target is not None:
        tolerance = phi.tolerance or 0.0
        allowed = tolerance * abs(phi.target) if phi.relative else tolerance
        error = abs(value - phi.target)
        ok &= error <= allowed
        reasons.append(f"|{value:.6g} - {phi.target:.6g}| = {error:.3g} vs tolerance {allowed:.3g}")
    if phi.min is not None:
        ok &= value >= phi.min
        reasons.append(f"{value:.6g} >= {phi.min:.6g}")
    if phi.max is not None:
        ok &= value <= phi.max
        reasons.append(f"{value:.6g} <= {phi.max:.6g}")
    if not reasons:
        return "inconclusive", "the condition names no target, bounds or required truth"
    return ("supported" if ok else "violated"), "; ".join(reasons)
