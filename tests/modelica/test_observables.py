"""Derived observables on trajectories with known answers, and the suggested adjudication."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.core.tools import ToolFailure
from workbench_plugins.modelica import observables as ob

T = np.linspace(0.0, 10.0, 10001)
FIRST_ORDER = {"y": list(1 - np.exp(-T)), "ramp": list(T), "bump": list(np.sin(T))}
Z, W0 = 0.2, 2.0
WD = W0 * math.sqrt(1 - Z * Z)
STEP = {"y": list(1 - np.exp(-Z * W0 * T) * (np.cos(WD * T) + Z * W0 / WD * np.sin(WD * T)))}


def measure(spec: dict, series: dict = FIRST_ORDER) -> ob.Measurement:
    from pydantic import TypeAdapter

    parsed = TypeAdapter(ob.Observable).validate_python(spec)
    return ob.evaluate(parsed, list(T), series)


def test_value_at_time_interpolates() -> None:
    assert measure({"type": "value_at_time", "variable": "y", "time": 2.00005}).value == (
        pytest.approx(1 - math.exp(-2.00005), rel=1e-7)
    )


def test_extremum_and_window() -> None:
    top = measure({"type": "extremum", "variable": "bump", "kind": "max", "end": 4})
    assert top.value == pytest.approx(1.0, abs=1e-6) and top.at_time == pytest.approx(
        math.pi / 2, abs=1e-3
    )
    low = measure({"type": "extremum", "variable": "bump", "kind": "min", "start": 0, "end": 6})
    assert low.at_time == pytest.approx(3 * math.pi / 2, abs=1e-3)


def test_settling_time_of_first_order_is_tau_ln_50() -> None:
    settled = measure({"type": "settling_time", "variable": "y", "band": 0.02, "final": 1.0})
    assert settled.value == pytest.approx(math.log(50), abs=2e-3)


def test_overshoot_of_second_order_step() -> None:
    peak = measure({"type": "overshoot", "variable": "y", "final": 1.0}, STEP)
    assert peak.value == pytest.approx(math.exp(-Z * math.pi / math.sqrt(1 - Z * Z)), rel=1e-4)
    assert peak.at_time == pytest.approx(math.pi / WD, abs=2e-3)


def test_steady_state_integral_and_monotonicity() -> None:
    steady = measure({"type": "steady_state", "variable": "y", "fraction": 0.1})
    assert steady.value == pytest.approx(1.0, abs=1e-3)
    area = measure({"type": "integral", "variable": "ramp"})
    assert area.value == pytest.approx(50.0, rel=1e-9)
    assert measure({"type": "monotonic", "variable": "y"}).value is True
    assert measure({"type": "monotonic", "variable": "bump"}).value is False


def test_judge_suggests_adjudications() -> None:
    value = ob.Measurement(observable={}, value=2.52)
    assert ob.judge(value, {"target": 2.52848, "tolerance": 0.04})[0] == "supported"
    assert ob.judge(value, {"max": 2.5})[0] == "violated"
    assert ob.judge(ob.Measurement(observable={}, value=True), {"equals": True})[0] == "supported"
    assert ob.judge(value, {})[0] == "inconclusive"
    assert ob.judge(ob.Measurement(observable={}, value=None), {"max": 1})[0] == "violated"


def test_bad_requests_are_explained() -> None:
    with pytest.raises(ToolFailure, match="no variable 'z'"):
        measure({"type": "integral", "variable": "z"})
    with pytest.raises(ToolFailure, match="outside the run"):
        measure({"type": "value_at_time", "variable": "y", "time": 20})
