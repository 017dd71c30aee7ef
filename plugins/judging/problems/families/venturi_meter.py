"""Horizontal venturi meter with a mercury U-tube manometer: the volume flow rate of water.

Bernoulli between the inlet 1 and the throat 2 with continuity A1 V1 = A2 V2 gives the ideal
throat velocity V2 = sqrt(2 Δp / (rho (1 - (A2/A1)²))); the manometer reads Δp = (rho_m - rho) g h;
the discharge coefficient corrects the ideal flow: Q = C_d A2 V2."""

from __future__ import annotations

import math

import pint

from workbench_plugins.judging.problems import diagrams
from workbench_plugins.judging.problems.model import (
    Family,
    Problem,
    given_quantities,
    pick,
    problem_id,
    quantity_text,
    seeded_random,
)

NAME = "venturi_meter"


def make(seed: int) -> Problem:
    """D1 100-300 mm, throat 40-70 % of D1, reading 50-400 mm of mercury, C_d 0.95-0.99."""
    rng = seeded_random(NAME, seed)
    inlet = pick(rng, 100.0, 300.0, 25.0)
    throat = 5.0 * round(inlet * pick(rng, 0.4, 0.7, 0.05) / 5.0)
    given = {
        "D1": quantity_text(inlet, "mm"),
        "D2": quantity_text(throat, "mm"),
        "h": quantity_text(pick(rng, 50.0, 400.0, 10.0), "mm"),
        "rho": quantity_text(1000.0, "kg/m**3"),
        "rho_m": quantity_text(13600.0, "kg/m**3", digits=5),
        "C_d": quantity_text(pick(rng, 0.95, 0.99, 0.01), ""),
        "g": quantity_text(9.81, "m/s**2"),
    }
    statement = (
        f"Water (density rho = {given['rho']}) flows through a horizontal venturi meter with "
        f"inlet diameter D1 = {given['D1']} and throat diameter D2 = {given['D2']}. A U-tube "
        f"manometer filled with mercury (density rho_m = {given['rho_m']}) connects the inlet "
        f"and the throat and shows a difference in mercury levels h = {given['h']}. The "
        f"discharge coefficient is C_d = {given['C_d']}; g = {given['g']}. Find the volume flow "
        "rate of water in L/s."
    )
    return Problem(
        id=problem_id(NAME, seed),
        subject="fluid_mechanics",
        family=NAME,
        seed=seed,
        title="Venturi meter with a mercury manometer",
        statement=statement,
        given=given,
        asked="the volume flow rate of water through the venturi meter",
        answer_value=float(flow_rate(given).to("L/s").magnitude),
        answer_unit="L/s",
    )


def flow_rate(given: dict[str, str]) -> pint.Quantity:
    """Q = C_d A2 sqrt(2 Δp / (rho (1 - (A2/A1)²))), Δp = (rho_m - rho) g h (pint quantities)."""
    values = given_quantities(given)
    inlet_area = math.pi * values["D1"] ** 2 / 4
    throat_area = math.pi * values["D2"] ** 2 / 4
    pressure_drop = (values["rho_m"] - values["rho"]) * values["g"] * values["h"]
    area_ratio = (throat_area / inlet_area).to("dimensionless")
    velocity = (2 * pressure_drop / (values["rho"] * (1 - area_ratio**2))) ** 0.5
    return values["C_d"] * throat_area * velocity


def draw(problem: Problem) -> bytes:
    """The venturi outline to scale, D1 and D2 marked, the manometer with its reading h."""
    given = problem.given
    values = given_quantities(given)
    ratio = float((values["D2"] / values["D1"]).to("dimensionless").magnitude)
    figure, axes = diagrams.new_figure()
    axis_y, inlet_half = 5.2, 1.2
    throat_half = inlet_half * ratio
    xs = [0.6, 2.6, 4.6, 5.6, 9.6, 11.4]
    halves = [inlet_half, inlet_half, throat_half, throat_half, inlet_half, inlet_half]
    diagrams.title(axes, problem.title)
    for sign in (1, -1):
        axes.plot(xs, [axis_y + sign * half for half in halves], color=diagrams.INK, linewidth=2)
    diagrams.flow_arrow(axes, (0.4, axis_y), (1.5, axis_y), "Q")
    diagrams.dimension(
        axes,
        (2.1, axis_y - inlet_half),
        (2.1, axis_y + inlet_half),
        f"D1 = {given['D1']}",
        offset=(0.0, inlet_half + 0.35),
    )
    diagrams.dimension(
        axes,
        (5.1, axis_y - throat_half),
        (5.1, axis_y + throat_half),
        f"D2 = {given['D2']}",
        offset=(0.0, inlet_half + 0.35),
    )
    diagrams.label(axes, (2.6, axis_y + 0.5), "1", fontweight="bold")
    diagrams.label(axes, (5.1, axis_y + throat_half + 0.2), "2", fontweight="bold")
    _manometer(axes, (2.6, 5.1), axis_y - inlet_half, axis_y - throat_half, given)
    diagrams.given_box(
        axes,
        {name: given[name] for name in ("rho", "rho_m", "C_d", "g")},
        (8.9, 3.4),
        header="Water, mercury",
    )
    return diagrams.png_bytes(figure)


def _manometer(
    axes: diagrams.Axes,
    legs_x: tuple[float, float],
    inlet_wall: float,
    throat_wall: float,
    given: dict[str, str],
) -> None:
    """A U-tube under the pipe; the mercury stands lower under the inlet by the reading h."""
    left, right = legs_x
    bottom, low_level, high_level = 0.6, 1.6, 2.8
    for x, top in ((left, inlet_wall), (right, throat_wall)):
        axes.plot([x, x], [top, bottom], color=diagrams.INK, linewidth=1.4)
    axes.plot([left, right], [bottom, bottom], color=diagrams.INK, linewidth=1.4)
    mercury = "#8a8f98"
    axes.plot(
        [left, left, right, right],
        [low_level, bottom, bottom, high_level],
        color=mercury,
        linewidth=6,
        solid_capstyle="butt",
    )
    diagrams.label(axes, ((left + right) / 2, bottom + 0.35), "mercury", fontsize=9)
    diagrams.dimension(
        axes,
        (right + 0.35, low_level),
        (right + 0.35, high_level),
        f"h = {given['h']}",
        offset=(1.25, 0.0),
    )
    axes.plot(
        [left, right + 0.5],
        [low_level, low_level],
        color=diagrams.INK,
        linewidth=0.6,
        linestyle="--",
    )


FAMILY = Family(
    name=NAME,
    subject="fluid_mechanics",
    title="Venturi meter: volume flow rate",
    make=make,
    draw=draw,
)
