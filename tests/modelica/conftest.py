"""Shared pieces of the Modelica tests: the benchmark models and their analytic solutions."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[2] / "benchmarks" / "modelica"


def spring_mass_damper(t: float, m=1.0, k=4.0, d=0.4, x0=1.0) -> dict[str, float]:
    w0 = math.sqrt(k / m)
    z = d / (2 * math.sqrt(k * m))
    wd = w0 * math.sqrt(1 - z * z)
    decay = math.exp(-z * w0 * t)
    x = x0 * decay * (math.cos(wd * t) + z * w0 / wd * math.sin(wd * t))
    v = -x0 * decay * (w0 * w0 / wd) * math.sin(wd * t)
    return {"x": x, "v": v}


def rc_charge(t: float, V=5.0, R=1000.0, C=1e-3) -> dict[str, float]:
    tau = R * C
    return {"vc": V * (1 - math.exp(-t / tau)), "i": V / R * math.exp(-t / tau)}


def first_order_thermal(t: float, Cth=2.0, G=0.5, P=10.0, Ta=293.15, T0=293.15) -> dict:
    t_inf = Ta + P / G
    temperature = t_inf + (T0 - t_inf) * math.exp(-t * G / Cth)
    return {"T": temperature, "Q": G * (temperature - Ta)}


CASES = {
    "SpringMassDamper": spring_mass_damper,
    "RCCharge": rc_charge,
    "FirstOrderThermal": first_order_thermal,
}


@pytest.fixture
def inline_simulation(context):  # type: ignore[no-untyped-def]
    """Simulate in the calling thread (documented setting) so harness tests stay quick."""
    context.settings.plugins["modelica"] = {"inline_max_intervals": 1_000_000}
    return context


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_omc: needs OpenModelica's omc installed")
