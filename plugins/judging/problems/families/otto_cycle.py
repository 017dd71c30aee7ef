"""Ideal air-standard Otto cycle with a given heat input per kg.

Asks the mean effective pressure or the net work per kg. Ground truth with pint:
T2 = T1 r^(k-1), T3 = T2 + q_in/cv, T4 = T3 / r^(k-1), w_net = q_in - cv (T4 - T1),
v1 = R T1 / P1, mep = w_net / (v1 - v1/r), cv = R/(k-1)."""

from __future__ import annotations

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

NAME = "otto_cycle"


@dataclass(frozen=True)
class OttoCycle:
    """States (K, kPa, m³/kg) and results (kJ/kg, kPa) of the ideal Otto cycle."""

    temperatures: tuple[float, float, float, float]
    pressures: tuple[float, float, float, float]
    volumes: tuple[float, float]  # v1 = v4 and v2 = v3
    net_work: float
    mean_effective_pressure: float


def otto_cycle(given: dict[str, str]) -> OttoCycle:
    """The cycle from the given texts (pint does the units)."""
    ratio = float(quantity(given["r"]).magnitude)
    k = float(quantity(given["k"]).magnitude)
    gas_constant = quantity(given["R"])
    cv = gas_constant / (k - 1)
    t1, p1, heat_in = quantity(given["T1"]), quantity(given["P1"]), quantity(given["q_in"])
    t2 = t1 * ratio ** (k - 1)
    t3 = t2 + heat_in / cv
    t4 = t3 / ratio ** (k - 1)
    net_work = heat_in - cv * (t4 - t1)
    v1 = gas_constant * t1 / p1
    v2 = v1 / ratio
    mep = net_work / (v1 - v2)
    temperatures = [float(t.to("K").magnitude) for t in (t1, t2, t3, t4)]
    p = float(p1.to("kPa").magnitude)
    pressures = [
        p * t / temperatures[0] * (ratio if i in (1, 2) else 1) for i, t in enumerate(temperatures)
    ]
    return OttoCycle(
        temperatures=tuple(temperatures),  # type: ignore[arg-type]
        pressures=tuple(pressures),  # type: ignore[arg-type]
        volumes=(float(v1.to("m**3/kg").magnitude), float(v2.to("m**3/kg").magnitude)),
        net_work=float(net_work.to("kJ/kg").magnitude),
        mean_effective_pressure=float(mep.to("kPa").magnitude),
    )


def make(seed: int) -> Problem:
    """A spark-ignition engine cycle: compression ratio 7-11, 800-1800 kJ/kg heat input."""
    rng = seeded_random(NAME, seed)
    given = {
        "r": text(pick(rng, 7, 11, 0.5), ""),
        "P1": text(pick(rng, 90, 100, 5), "kPa"),
        "T1": text(pick(rng, 290, 330, 5), "K"),
        "q_in": text(pick(rng, 800, 1800, 50), "kJ/kg"),
        "R": text(0.287, "kJ/(kg·K)"),
        "k": text(1.4, ""),
    }
    cycle = otto_cycle(given)
    if rng.random() < 0.5:
        asked, value, unit = (
            "the mean effective pressure, in kPa",
            cycle.mean_effective_pressure,
            "kPa",
        )
    else:
        asked, value, unit = "the net work per kg of air, in kJ/kg", cycle.net_work, "kJ/kg"
    statement = (
        "An ideal air-standard Otto cycle 1-2-3-4 has a compression ratio r = v1/v2 = "
        f"{given['r']}. At the start of the isentropic compression the air is at P1 = "
        f"{given['P1']} and T1 = {given['T1']}; q_in = {given['q_in']} of heat is added at "
        "constant volume (2-3), followed by isentropic expansion (3-4) and heat rejection at "
        f"constant volume (4-1). Treat air as an ideal gas with R = {given['R']} and constant "
        f"k = {given['k']} (cv = R/(k-1)). Find {asked}."
    )
    return Problem(
        id=f"{NAME}-s{seed}",
        subject="thermodynamics",
        family=NAME,
        seed=seed,
        title="Ideal air-standard Otto cycle",
        statement=statement,
        given=given,
        asked=asked,
        answer_value=value,
        answer_unit=unit,
    )


def _draw_cycle(chart: Axes, given: dict[str, str]) -> None:
    """P-v chart: two isentropes and two constant-volume lines, the states numbered."""
    cycle = otto_cycle(given)
    k = float(quantity(given["k"]).magnitude)
    v1, v2 = cycle.volumes
    p1, p2, p3, p4 = cycle.pressures
    volumes = np.linspace(v2, v1, 80)
    chart.plot(volumes, p1 * (v1 / volumes) ** k, color="k")
    chart.plot(volumes, p4 * (v1 / volumes) ** k, color="k")
    chart.plot([v2, v2], [p2, p3], color=diagrams.LOAD, lw=2)
    chart.plot([v1, v1], [p4, p1], color=diagrams.ACCENT, lw=2)
    points = ((v1, p1, "1"), (v2, p2, "2"), (v2, p3, "3"), (v1, p4, "4"))
    for v, p, name in points:
        chart.plot(v, p, "o", color="k", ms=4)
        chart.annotate(name, (v, p), (5, 3), textcoords="offset points", fontsize=9)
    chart.annotate(
        "q_in",
        (v2, (p2 + p3) / 2),
        (12, 0),
        textcoords="offset points",
        fontsize=8,
        color=diagrams.LOAD,
    )
    chart.set_xticks([v2, v1], ["v2", "v1"])
    chart.set_yticks([p1], [f"P1 = {given['P1']}"], fontsize=7)
    chart.set_xlabel("v", fontsize=8)
    chart.set_ylabel("P", fontsize=8)
    chart.set_title("P-v diagram", fontsize=9)


def draw(problem: Problem) -> bytes:
    """The P-v diagram beside a panel with every given value and the question."""
    figure, chart, panel = chart_figure()
    _draw_cycle(chart, problem.given)
    given = problem.given
    lines = [
        "1-2 isentropic compression",
        f"  r = v1/v2 = {given['r']}",
        "2-3 heat in at v = const.",
        f"  q_in = {given['q_in']}",
        "3-4 isentropic expansion",
        "4-1 heat out at v = const.",
        "",
        f"P1 = {given['P1']}",
        f"T1 = {given['T1']}",
        f"air: R = {given['R']}",
        f"     k = {given['k']}",
    ]
    panel.text(0.02, 0.95, "\n".join(lines), ha="left", va="top", fontsize=8)
    question = "mep = ? (kPa)" if "mean effective" in problem.asked else "w_net = ? (kJ/kg)"
    asked_mark(panel, (0.45, 0.1), question)
    return diagrams.png_bytes(figure)


FAMILY = Family(
    name=NAME,
    subject="thermodynamics",
    title="Ideal air-standard Otto cycle",
    make=make,
    draw=draw,
)
