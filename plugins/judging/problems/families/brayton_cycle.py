"""Air-standard Brayton (gas-turbine) cycle with isentropic efficiencies of compressor and turbine.

Asks the thermal efficiency or the net work per kg of air. Ground truth with pint:
T2s = T1 r^((k-1)/k), T2 = T1 + (T2s - T1)/eta_c, T4s = T3 / r^((k-1)/k),
T4 = T3 - eta_t (T3 - T4s),
w_net = cp (T3 - T4) - cp (T2 - T1), eta = w_net / (cp (T3 - T2))."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes

from workbench_plugins.judging.problems import diagrams
from workbench_plugins.judging.problems.families._thermal import (
    asked_mark,
    chart_figure,
    quantity,
    text,
)
from workbench_plugins.judging.problems.model import Family, Problem, pick, seeded_random

NAME = "brayton_cycle"


@dataclass(frozen=True)
class BraytonStates:
    """Temperatures of the four states (K) and the specific works and heat (kJ/kg)."""

    temperatures: tuple[float, float, float, float]
    compressor_work: float
    turbine_work: float
    heat_in: float

    @property
    def net_work(self) -> float:
        return self.turbine_work - self.compressor_work

    @property
    def efficiency(self) -> float:
        return self.net_work / self.heat_in


def brayton_states(given: dict[str, str]) -> BraytonStates:
    """The cycle from the given texts (pint does the units)."""
    t1, t3 = quantity(given["T1"]), quantity(given["T3"])
    ratio = float(quantity(given["r_p"]).to("dimensionless").magnitude)
    k = float(quantity(given["k"]).to("dimensionless").magnitude)
    cp = quantity(given["cp"])
    efficiency_c = float(quantity(given["eta_c"]).to("dimensionless").magnitude)
    efficiency_t = float(quantity(given["eta_t"]).to("dimensionless").magnitude)
    isentropic_factor = ratio ** ((k - 1) / k)
    t2 = t1 + (t1 * isentropic_factor - t1) / efficiency_c
    t4 = t3 - efficiency_t * (t3 - t3 / isentropic_factor)
    return BraytonStates(
        temperatures=tuple(float(t.to("K").magnitude) for t in (t1, t2, t3, t4)),  # type: ignore[arg-type]
        compressor_work=float((cp * (t2 - t1)).to("kJ/kg").magnitude),
        turbine_work=float((cp * (t3 - t4)).to("kJ/kg").magnitude),
        heat_in=float((cp * (t3 - t2)).to("kJ/kg").magnitude),
    )


def make(seed: int) -> Problem:
    """A simple gas-turbine cycle: ambient inlet, pressure ratio 6-14, turbine inlet 1100-1500 K."""
    rng = seeded_random(NAME, seed)
    given = {
        "P1": text(pick(rng, 95, 101, 1), "kPa"),
        "T1": text(pick(rng, 280, 310, 5), "K"),
        "r_p": text(pick(rng, 6, 14, 1), ""),
        "T3": text(pick(rng, 1100, 1500, 50), "K"),
        "eta_c": text(pick(rng, 0.8, 0.9, 0.01), ""),
        "eta_t": text(pick(rng, 0.84, 0.92, 0.01), ""),
        "cp": text(1.005, "kJ/(kg·K)"),
        "k": text(1.4, ""),
    }
    states = brayton_states(given)
    if rng.random() < 0.5:
        asked = "the thermal efficiency of the cycle, in %"
        value = float(quantity(states.efficiency, "dimensionless").to("percent").magnitude)
        unit = "percent"
    else:
        asked = "the net work of the cycle per kg of air, in kJ/kg"
        value, unit = states.net_work, "kJ/kg"
    statement = (
        "A simple gas-turbine plant runs on the air-standard Brayton cycle 1-2-3-4: air enters the "
        f"compressor at P1 = {given['P1']} and T1 = {given['T1']}, is compressed with a pressure "
        f"ratio r_p = P2/P1 = {given['r_p']} (isentropic efficiency eta_c = {given['eta_c']}), "
        f"heated at constant pressure to T3 = {given['T3']}, expanded in the turbine back to P1 "
        f"(isentropic efficiency eta_t = {given['eta_t']}) and cooled at constant pressure to "
        f"state 1. Treat air as an ideal gas with constant cp = {given['cp']} and k = "
        f"{given['k']}; neglect kinetic and potential energy changes and pressure losses. "
        f"Find {asked}."
    )
    return Problem(
        id=f"{NAME}-s{seed}",
        subject="thermodynamics",
        family=NAME,
        seed=seed,
        title="Air-standard Brayton cycle with component efficiencies",
        statement=statement,
        given=given,
        asked=asked,
        answer_value=value,
        answer_unit=unit,
    )


def _entropy(temperature: float, pressure: float, cp: float, gas_constant: float) -> float:
    """Specific entropy relative to 1 K, 1 kPa (kJ/(kg·K)), only for drawing."""
    return cp * math.log(temperature) - gas_constant * math.log(pressure)


def _draw_cycle(chart: Axes, given: dict[str, str]) -> None:
    """T-s chart: both isobars, the four states and the isentropic states 2s and 4s dashed."""
    cp = float(quantity(given["cp"]).to("kJ/(kg*K)").magnitude)
    k = float(quantity(given["k"]).magnitude)
    gas_constant = cp * (k - 1) / k
    low = float(quantity(given["P1"]).to("kPa").magnitude)
    high = low * float(quantity(given["r_p"]).magnitude)
    t1, t2, t3, t4 = brayton_states(given).temperatures
    pressures = (low, high, high, low)
    states = zip((t1, t2, t3, t4), pressures, strict=True)
    entropy = [_entropy(t, p, cp, gas_constant) for t, p in states]
    span = np.linspace(0.8 * t1, 1.05 * t3, 100)
    for pressure, name in ((low, "P1"), (high, "P2")):
        chart.plot([_entropy(t, pressure, cp, gas_constant) for t in span], span, color="0.75")
        chart.text(_entropy(span[-1], pressure, cp, gas_constant), span[-1], name, fontsize=7)
    heating = np.linspace(t2, t3, 40)
    cooling = np.linspace(t4, t1, 40)
    chart.plot([_entropy(t, high, cp, gas_constant) for t in heating], heating, color=diagrams.LOAD)
    chart.plot(
        [_entropy(t, low, cp, gas_constant) for t in cooling], cooling, color=diagrams.ACCENT
    )
    chart.plot(entropy[0:2], [t1, t2], color="k")
    chart.plot(entropy[2:4], [t3, t4], color="k")
    chart.plot([entropy[0]] * 2, [t1, t2 * 0.97], color="k", ls=":", lw=0.8)
    chart.plot([entropy[2]] * 2, [t3, t4 * 0.97], color="k", ls=":", lw=0.8)
    labels = (f"1  ({given['T1']})", "2", f"3  ({given['T3']})", "4")
    for s, t, name in zip(entropy, (t1, t2, t3, t4), labels, strict=True):
        chart.plot(s, t, "o", color="k", ms=4)
        chart.annotate(name, (s, t), (5, 3), textcoords="offset points", fontsize=8)
    chart.set_xlabel("s (kJ/(kg·K)), arbitrary origin", fontsize=8)
    chart.set_ylabel("T (K)", fontsize=8)
    chart.set_title("T-s diagram", fontsize=9)
    chart.set_xticks([])


def draw(problem: Problem) -> bytes:
    """The T-s diagram of the cycle beside a panel with every given value and the question."""
    figure, chart, panel = chart_figure()
    _draw_cycle(chart, problem.given)
    given = problem.given
    lines = [
        "compressor 1-2:",
        f"  r_p = P2/P1 = {given['r_p']}",
        f"  eta_c = {given['eta_c']}",
        "heater 2-3 (P2 const.)",
        "turbine 3-4:",
        f"  eta_t = {given['eta_t']}",
        "cooler 4-1 (P1 const.)",
        "",
        f"P1 = {given['P1']}",
        f"T1 = {given['T1']}",
        f"T3 = {given['T3']}",
        f"air: cp = {given['cp']}",
        f"     k = {given['k']}",
    ]
    panel.text(0.02, 0.95, "\n".join(lines), ha="left", va="top", fontsize=8, family="DejaVu Sans")
    question = "eta_th = ?" if "efficiency" in problem.asked else "w_net = ? (kJ/kg)"
    asked_mark(panel, (0.45, 0.1), question)
    return diagrams.png_bytes(figure)


FAMILY = Family(
    name=NAME,
    subject="thermodynamics",
    title="Air-standard Brayton cycle",
    make=make,
    draw=draw,
)
