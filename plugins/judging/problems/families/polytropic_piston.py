"""Air in a piston-cylinder device compressed or expanded polytropically (P V^n = const).

Asks the boundary work or the heat transfer. Ground truth with pint:
P2 = P1 (V1/V2)^n, W_by_gas = (P2 V2 - P1 V1) / (1 - n), m = P1 V1 / (R T1), T2 = T1 (V1/V2)^(n-1),
Q_into_gas = m c_n (T2 - T1) with the polytropic specific heat c_n = cv (n - k) / (n - 1)."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from workbench_plugins.judging.problems import diagrams
from workbench_plugins.judging.problems.families._thermal import (
    asked_mark,
    chart_figure,
    quantity,
    text,
)
from workbench_plugins.judging.problems.model import Family, Problem, pick, seeded_random

NAME = "polytropic_piston"


def process_results(given: dict[str, str]) -> dict[str, float]:
    """Work done by the gas and heat into the gas (kJ, signed), and P2 (kPa)."""
    p1, v1, v2 = quantity(given["P1"]), quantity(given["V1"]), quantity(given["V2"])
    n = float(quantity(given["n"]).magnitude)
    volume_ratio = float((v1 / v2).to("dimensionless").magnitude)
    p2 = p1 * volume_ratio**n
    work_by_gas = ((p2 * v2 - p1 * v1) / (1 - n)).to("kJ")
    results = {"P2": float(p2.to("kPa").magnitude), "W_by": float(work_by_gas.magnitude)}
    if "T1" in given:
        gas_constant, cv = quantity(given["R"]), quantity(given["cv"])
        t1 = quantity(float(given["T1"].split()[0]), "degC").to("K")
        mass = p1 * v1 / (gas_constant * t1)
        k = float(((cv + gas_constant) / cv).to("dimensionless").magnitude)
        polytropic_heat = cv * (n - k) / (n - 1)
        t2 = t1 * volume_ratio ** (n - 1)
        results["Q_in"] = float((mass * polytropic_heat * (t2 - t1)).to("kJ").magnitude)
    return results


def make(seed: int) -> Problem:
    """A few litres of air at 100-400 kPa, volume ratio 2-5, n between 1.1 and 1.3 (below k)."""
    rng = seeded_random(NAME, seed)
    compression = rng.random() < 0.5
    small = pick(rng, 2, 10, 0.5)
    large = round(small * pick(rng, 2, 5, 0.5), 10)
    v1, v2 = (large, small) if compression else (small, large)
    given = {
        "P1": text(pick(rng, 100, 400, 20), "kPa"),
        "V1": text(v1, "L"),
        "V2": text(v2, "L"),
        "n": text(pick(rng, 1.1, 1.3, 0.05), ""),
    }
    wants_heat = rng.random() < 0.5
    if wants_heat:
        given["T1"] = text(pick(rng, 20, 60, 5), "°C")
        given["R"] = text(0.287, "kJ/(kg·K)")
        given["cv"] = text(0.718, "kJ/(kg·K)")
    results = process_results(given)
    verb = "compressed" if compression else "allowed to expand"
    if wants_heat:
        direction = "removed from" if compression else "added to"
        asked = f"the heat {direction} the air during the process, in J"
        value, unit = float(quantity(abs(results["Q_in"]), "kJ").to("J").magnitude), "J"
    else:
        direction = "done on" if compression else "done by"
        asked = f"the boundary work {direction} the air during the process, in kJ"
        value, unit = abs(results["W_by"]), "kJ"
    heat_data = (
        f" The air is initially at T1 = {given['T1']}; treat it as an ideal gas with R = "
        f"{given['R']} and cv = {given['cv']}."
        if wants_heat
        else ""
    )
    statement = (
        f"Air in a piston-cylinder device, initially at P1 = {given['P1']} and V1 = {given['V1']}, "
        f"is {verb} slowly to V2 = {given['V2']} in a "
        f"polytropic process P V^n = constant with n = {given['n']}.{heat_data} Find {asked}."
    )
    return Problem(
        id=f"{NAME}-s{seed}",
        subject="thermodynamics",
        family=NAME,
        seed=seed,
        title=f"Polytropic {'compression' if compression else 'expansion'} in a piston-cylinder",
        statement=statement,
        given=given,
        asked=asked,
        answer_value=value,
        answer_unit=unit,
    )


def _draw_process(chart: Axes, given: dict[str, str]) -> None:
    """P-V chart of the process with the work area shaded."""
    v1 = float(quantity(given["V1"]).to("L").magnitude)
    v2 = float(quantity(given["V2"]).to("L").magnitude)
    p1 = float(quantity(given["P1"]).to("kPa").magnitude)
    n = float(quantity(given["n"]).magnitude)
    volumes = np.linspace(min(v1, v2), max(v1, v2), 80)
    pressures = p1 * (v1 / volumes) ** n
    chart.plot(volumes, pressures, color="k")
    chart.fill_between(volumes, pressures, color=diagrams.FILL)
    p2 = p1 * (v1 / v2) ** n
    for v, p, name in ((v1, p1, "1"), (v2, p2, "2")):
        chart.plot(v, p, "o", color="k", ms=4)
        chart.annotate(name, (v, p), (5, 4), textcoords="offset points", fontsize=9)
    along = [v1 + fraction * (v2 - v1) for fraction in (0.3, 0.45)]
    chart.annotate(
        "",
        (along[1], p1 * (v1 / along[1]) ** n + 0.04 * max(p1, p2)),
        (along[0], p1 * (v1 / along[0]) ** n + 0.04 * max(p1, p2)),
        arrowprops={"arrowstyle": "-|>", "color": diagrams.LOAD, "lw": 1.5},
    )
    chart.set_xticks(
        sorted((v1, v2)), [f"{given['V1']}", f"{given['V2']}"][:: 1 if v1 < v2 else -1]
    )
    chart.set_yticks([p1], [f"P1 =\n{given['P1']}"], fontsize=7)
    chart.set_ylim(0, max(p1, p2) * 1.15)
    chart.set_xlim(0, max(v1, v2) * 1.1)
    chart.set_xlabel("V", fontsize=8)
    chart.set_ylabel("P", fontsize=8)
    chart.set_title(f"P V^n = const., n = {given['n']}", fontsize=9)


def _draw_cylinder(panel: Axes) -> None:
    """A small piston-cylinder sketch in the panel."""
    panel.add_patch(Rectangle((0.15, 0.62), 0.5, 0.3, facecolor="#dcecf8", edgecolor="k", lw=1.5))
    panel.add_patch(Rectangle((0.5, 0.62), 0.05, 0.3, facecolor="#9aa5b1", edgecolor="k"))
    panel.plot([0.55, 0.8], [0.77, 0.77], color="k", lw=2)
    panel.text(0.32, 0.77, "air", ha="center", va="center", fontsize=9)


def draw(problem: Problem) -> bytes:
    """The P-V path beside a piston sketch, every given value and the question."""
    figure, chart, panel = chart_figure()
    _draw_process(chart, problem.given)
    _draw_cylinder(panel)
    lines = [f"{name} = {value}" for name, value in problem.given.items()]
    panel.text(0.05, 0.55, "\n".join(lines), ha="left", va="top", fontsize=8)
    question = "Q = ? (J)" if "heat" in problem.asked else "W_b = ? (kJ)"
    asked_mark(panel, (0.45, 0.08), question)
    return diagrams.png_bytes(figure)


FAMILY = Family(
    name=NAME,
    subject="thermodynamics",
    title="Polytropic process in a piston-cylinder",
    make=make,
    draw=draw,
)
