"""A pin fin on a hot wall, convection along it and from its tip.

Asks the heat rate the fin removes, or its tip temperature. Ground truth with pint, the
convective-tip solution: m = sqrt(h P / (k A_c)), M = sqrt(h P k A_c) theta_b,
q = M (sinh mL + (h/mk) cosh mL) / (cosh mL + (h/mk) sinh mL),
theta(L) / theta_b = 1 / (cosh mL + (h/mk) sinh mL)."""

from __future__ import annotations

import math

from matplotlib.patches import Rectangle

from workbench_plugins.judging.problems import diagrams
from workbench_plugins.judging.problems.families._thermal import (
    GIVEN_BOX,
    article,
    asked_mark,
    new_figure,
    quantity,
    text,
)
from workbench_plugins.judging.problems.model import Family, Problem, pick, seeded_random

NAME = "pin_fin"

METALS = {
    "aluminium alloy": (150, 240, 10),
    "copper": (360, 400, 10),
    "stainless steel": (14, 20, 1),
}


def fin_answer(given: dict[str, str], asked: str) -> tuple[float, str]:
    """Heat rate in W (asked "q") or tip temperature in °C (asked "T_tip") from the given texts."""
    diameter = quantity(given["D"])
    length = quantity(given["L"])
    conductivity = quantity(given["k"])
    film = quantity(given["h"])
    perimeter = math.pi * diameter
    section = math.pi * diameter**2 / 4
    m = ((film * perimeter / (conductivity * section)) ** 0.5).to("1/m")
    m_length = float((m * length).to("dimensionless").magnitude)
    tip_ratio = float((film / (m * conductivity)).to("dimensionless").magnitude)
    base_excess = quantity(_number(given["T_b"]) - _number(given["T_inf"]), "delta_degC")
    denominator = math.cosh(m_length) + tip_ratio * math.sinh(m_length)
    if asked == "T_tip":
        tip_excess = base_excess / denominator
        return _number(given["T_inf"]) + float(tip_excess.to("delta_degC").magnitude), "degC"
    fin_parameter = (film * perimeter * conductivity * section) ** 0.5 * base_excess
    numerator = math.sinh(m_length) + tip_ratio * math.cosh(m_length)
    return float((fin_parameter * numerator / denominator).to("W").magnitude), "W"


def _number(quantity_text: str) -> float:
    """The number of a "120 °C" text."""
    return float(quantity_text.split()[0])


def make(seed: int) -> Problem:
    """A metal pin, a few mm thick and a few cm long, on a wall at 60-150 °C in air."""
    rng = seeded_random(NAME, seed)
    metal = rng.choice(sorted(METALS))
    given = {
        "D": text(pick(rng, 3, 10, 0.5), "mm"),
        "L": text(pick(rng, 20, 100, 5), "mm"),
        "k": text(pick(rng, *METALS[metal]), "W/(m·K)"),
        "h": text(pick(rng, 10, 100, 5), "W/(m²·K)"),
        "T_b": text(pick(rng, 60, 150, 5), "°C"),
        "T_inf": text(pick(rng, 15, 30, 1), "°C"),
    }
    wanted = rng.choice(("q", "T_tip"))
    value, unit = fin_answer(given, wanted)
    if wanted == "q":
        asked = "the heat rate q_f the fin transfers to the air, in W"
    else:
        asked = "the temperature T_tip at the tip of the fin, in °C"
    statement = (
        f"{article(metal)} {metal} pin fin of diameter D = {given['D']} and length "
        f"L = {given['L']} (conductivity k = {given['k']}) sticks out of a wall held at "
        f"T_b = {given['T_b']} into air at T_inf = {given['T_inf']}. The convection coefficient "
        f"is h = {given['h']} on the side of the fin and on its tip. Assume steady "
        "one-dimensional conduction along the fin, constant properties and no radiation. "
        f"Find {asked}."
    )
    return Problem(
        id=f"{NAME}-s{seed}",
        subject="heat_mass_transfer",
        family=NAME,
        seed=seed,
        title=f"Pin fin of {metal} with a convective tip",
        statement=statement,
        given=given,
        asked=asked,
        answer_value=value,
        answer_unit=unit,
    )


def draw(problem: Problem) -> bytes:
    """The wall, the pin with its dimensions, the air and the asked quantity."""
    given = problem.given
    figure, axes = new_figure()
    axes.add_patch(Rectangle((0.05, 0.2), 0.12, 0.65, facecolor="#c8553d", hatch="//"))
    axes.text(0.11, 0.9, f"wall\nT_b = {given['T_b']}", ha="center", fontsize=8)
    axes.add_patch(Rectangle((0.17, 0.48), 0.55, 0.09, facecolor="#b9c2cc", edgecolor="k"))
    axes.text(0.445, 0.525, f"k = {given['k']}", ha="center", va="center", fontsize=8)
    diagrams.arrow(axes, (0.17, 0.27), (0.72, 0.27), color="k", width=1.0, both_ends=True)
    axes.text(0.445, 0.24, f"L = {given['L']}", ha="center", va="top", fontsize=8)
    diagrams.arrow(axes, (0.76, 0.48), (0.76, 0.57), color="k", width=1.0, both_ends=True)
    axes.text(0.775, 0.525, f"D = {given['D']}", ha="left", va="center", fontsize=8)
    for x in (0.3, 0.45, 0.6):
        diagrams.arrow(axes, (x, 0.6), (x, 0.7), color=diagrams.LOAD, width=1.0)
        diagrams.arrow(axes, (x, 0.45), (x, 0.36), color=diagrams.LOAD, width=1.0)
    diagrams.arrow(axes, (0.72, 0.525), (0.74, 0.525), color=diagrams.LOAD, width=1.0)
    axes.text(
        0.62,
        0.82,
        f"air: T_inf = {given['T_inf']}\nh = {given['h']} (sides and tip)",
        ha="center",
        va="center",
        fontsize=8,
        bbox=GIVEN_BOX,
    )
    if "q_f" in problem.asked:
        diagrams.arrow(axes, (0.2, 0.12), (0.45, 0.12), color=diagrams.LOAD, width=1.5)
        asked_mark(axes, (0.55, 0.12), "q_f = ?")
    else:
        asked_mark(axes, (0.8, 0.65), "T_tip = ?")
        diagrams.arrow(axes, (0.78, 0.62), (0.725, 0.57), color=diagrams.LOAD, width=1.0)
    axes.text(0.5, 0.03, problem.title, ha="center", fontsize=8, style="italic")
    return diagrams.png_bytes(figure)


FAMILY = Family(
    name=NAME,
    subject="heat_mass_transfer",
    title="Pin fin with a convective tip",
    make=make,
    draw=draw,
)
