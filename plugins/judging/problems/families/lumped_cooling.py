"""A small metal sphere quenched in a fluid: lumped-capacitance cooling time.

Ground truth with pint: t = rho c V / (h A) * ln((T_i - T_inf) / (T - T_inf)); the parameter ranges
keep the Biot number h (V/A) / k below 0.1 so the lumped model is valid."""

from __future__ import annotations

import math

from matplotlib.axes import Axes
from matplotlib.patches import Ellipse, Rectangle

from workbench_plugins.judging.problems import diagrams
from workbench_plugins.judging.problems.families._thermal import (
    GIVEN_BOX,
    new_figure,
    quantity,
    text,
)
from workbench_plugins.judging.problems.model import Family, Problem, pick, seeded_random

NAME = "lumped_cooling"

# name: density kg/m³, specific heat J/(kg·K), conductivity W/(m·K)
METALS = {
    "aluminium": (2700.0, 900.0, 200.0),
    "copper": (8900.0, 385.0, 400.0),
    "carbon steel": (7850.0, 475.0, 45.0),
    "brass": (8500.0, 380.0, 110.0),
}
FLUIDS = {"air stream": (20.0, 120.0, 5.0), "oil bath": (150.0, 400.0, 10.0)}


def cooling_time(given: dict[str, str]) -> float:
    """Seconds for the sphere to cool from T_i to T (lumped capacitance, from the given texts)."""
    diameter = quantity(given["D"])
    volume = math.pi * diameter**3 / 6
    area = math.pi * diameter**2
    time_constant = (
        quantity(given["rho"]) * quantity(given["c"]) * volume / (quantity(given["h"]) * area)
    ).to("s")
    initial, fluid, target = (_number(given[name]) for name in ("T_i", "T_inf", "T"))
    ratio = (initial - fluid) / (target - fluid)
    return float((time_constant * math.log(ratio)).to("s").magnitude)


def biot_number(given: dict[str, str]) -> float:
    """h (V/A) / k of the sphere: the lumped model needs it below 0.1."""
    characteristic_length = quantity(given["D"]) / 6
    biot = quantity(given["h"]) * characteristic_length / quantity(given["k"])
    return float(biot.to("dimensionless").magnitude)


def _number(quantity_text: str) -> float:
    """The number of a "150 °C" text (temperature differences only, so °C is fine)."""
    return float(quantity_text.split()[0])


def make(seed: int) -> Problem:
    """A sphere of a common metal cooled in air or oil from a few hundred °C."""
    rng = seeded_random(NAME, seed)
    metal = rng.choice(sorted(METALS))
    fluid_name = rng.choice(sorted(FLUIDS))
    density, specific_heat, conductivity = METALS[metal]
    fluid_temperature = pick(rng, 15, 30, 1)
    initial = pick(rng, 200, 450, 10)
    fraction = pick(rng, 0.15, 0.6, 0.05)
    target = round((fluid_temperature + fraction * (initial - fluid_temperature)) / 5) * 5
    given = {
        "D": text(pick(rng, 10, 40, 2), "mm"),
        "rho": text(density, "kg/m³"),
        "c": text(specific_heat, "J/(kg·K)"),
        "k": text(conductivity, "W/(m·K)"),
        "h": text(pick(rng, *FLUIDS[fluid_name]), "W/(m²·K)"),
        "T_i": text(initial, "°C"),
        "T_inf": text(fluid_temperature, "°C"),
        "T": text(target, "°C"),
    }
    asked = f"the time for the sphere to cool to T = {given['T']}, in s"
    statement = (
        f"A solid {metal} sphere of diameter D = {given['D']} (density rho = {given['rho']}, "
        f"specific heat c = {given['c']}, conductivity k = {given['k']}) is taken from a furnace "
        f"at a uniform T_i = {given['T_i']} and suddenly put into an {fluid_name} at "
        f"T_inf = {given['T_inf']}; the convection coefficient on its surface is h = {given['h']}. "
        f"Neglect radiation and take the properties as constant. Find {asked}."
    )
    return Problem(
        id=f"{NAME}-s{seed}",
        subject="heat_mass_transfer",
        family=NAME,
        seed=seed,
        title=f"Lumped cooling of a {metal} sphere",
        statement=statement,
        given=given,
        asked=asked,
        answer_value=cooling_time(given),
        answer_unit="s",
    )


def draw(problem: Problem) -> bytes:
    """The sphere in the fluid with its properties, and a sketch of T(t) with the asked time."""
    given = problem.given
    figure, axes = new_figure()
    axes.add_patch(Rectangle((0.03, 0.12), 0.5, 0.8, facecolor="#dcecf8", edgecolor="#9aa5b1"))
    axes.add_patch(Ellipse((0.27, 0.52), 0.22, 0.33, facecolor="#d98b4a", edgecolor="k"))
    axes.text(0.27, 0.52, f"T_i =\n{given['T_i']}", ha="center", va="center", fontsize=8)
    diagrams.arrow(axes, (0.16, 0.3), (0.38, 0.3), color="k", width=1.0, both_ends=True)
    axes.text(0.27, 0.26, f"D = {given['D']}", ha="center", va="top", fontsize=8)
    for height in (0.72, 0.8, 0.88):
        diagrams.arrow(axes, (0.05, height), (0.16, height), color=diagrams.ACCENT, width=1.2)
    axes.text(
        0.28,
        0.84,
        f"T_inf = {given['T_inf']}\nh = {given['h']}",
        ha="left",
        va="center",
        fontsize=8,
        bbox=GIVEN_BOX,
    )
    axes.text(
        0.28,
        0.16,
        f"rho = {given['rho']}   c = {given['c']}\nk = {given['k']}",
        ha="center",
        va="center",
        fontsize=8,
        bbox=GIVEN_BOX,
    )
    chart = figure.add_axes((0.62, 0.2, 0.34, 0.6))
    _sketch_cooling(chart, given)
    axes.text(0.5, 0.03, problem.title, ha="center", fontsize=8, style="italic")
    return diagrams.png_bytes(figure)


def _sketch_cooling(chart: Axes, given: dict[str, str]) -> None:
    """T(t) as an exponential decay without a time scale: marks T_i, T, T_inf and t = ?."""
    initial, fluid, target = (_number(given[name]) for name in ("T_i", "T_inf", "T"))
    times = [i / 50 for i in range(151)]
    chart.plot(times, [fluid + (initial - fluid) * math.exp(-t) for t in times], color="k")
    asked_time = math.log((initial - fluid) / (target - fluid))
    chart.axhline(fluid, color=diagrams.ACCENT, ls="--", lw=1)
    chart.plot([0, asked_time, asked_time], [target, target, fluid], color="0.5", ls=":")
    chart.set_xticks([asked_time], ["t = ?"], color=diagrams.LOAD, fontsize=9)
    chart.set_yticks(
        [fluid, target, initial],
        [f"T_inf {given['T_inf']}", f"T {given['T']}", f"T_i {given['T_i']}"],
        fontsize=7,
    )
    chart.set_xlim(0, 3)
    chart.set_xlabel("time", fontsize=8)
    chart.set_title("temperature of the sphere", fontsize=8)


FAMILY = Family(
    name=NAME,
    subject="heat_mass_transfer",
    title="Lumped-capacitance cooling of a sphere",
    make=make,
    draw=draw,
)
