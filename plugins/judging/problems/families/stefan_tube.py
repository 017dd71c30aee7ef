"""Water evaporating at the bottom of a Stefan tube: diffusion of vapour through stagnant air.

Ground truth with pint: c = P / (R_u T), x_0 = P_sat / P, x_L = p_L / P,
N_A = c D_AB / L * ln((1 - x_L) / (1 - x_0)), evaporation rate = M_A N_A pi D² / 4."""

from __future__ import annotations

import math

from matplotlib.patches import Rectangle

from workbench_plugins.judging.problems import diagrams
from workbench_plugins.judging.problems.families._thermal import (
    GIVEN_BOX,
    asked_mark,
    new_figure,
    quantity,
    text,
)
from workbench_plugins.judging.problems.model import Family, Problem, pick, seeded_random

NAME = "stefan_tube"
GAS_CONSTANT = quantity(8.314, "J/(mol*K)")
WATER_MOLAR_MASS = "18.02 g/mol"


def saturation_pressure_kpa(celsius: float) -> float:
    """Vapour pressure of water (Tetens' formula), only to draw a realistic given value; the
    statement gives the rounded number and the answer uses that number."""
    return 0.61078 * math.exp(17.27 * celsius / (celsius + 237.3))


def evaporation_rate(given: dict[str, str]) -> float:
    """Evaporation rate in mg/h from the given texts (Stefan's law, stagnant air)."""
    temperature = quantity(float(given["T"].split()[0]), "degC").to("K")
    pressure = quantity(given["P"])
    concentration = pressure / (GAS_CONSTANT * temperature)
    mole_fraction_surface = float(
        (quantity(given["p_sat"]) / pressure).to("dimensionless").magnitude
    )
    mole_fraction_top = float((quantity(given["p_top"]) / pressure).to("dimensionless").magnitude)
    flux = (
        concentration
        * quantity(given["D_AB"])
        / quantity(given["L"])
        * math.log((1 - mole_fraction_top) / (1 - mole_fraction_surface))
    )
    area = math.pi * quantity(given["d"]) ** 2 / 4
    return float((quantity(given["M_A"]) * flux * area).to("mg/h").magnitude)


def make(seed: int) -> Problem:
    """Water at 20-60 °C in a tube 10-30 mm wide, 50-200 mm of air above the water surface."""
    rng = seeded_random(NAME, seed)
    celsius = pick(rng, 20, 60, 5)
    saturation = round(saturation_pressure_kpa(celsius), 2)
    given = {
        "T": text(celsius, "°C"),
        "P": text(101.325, "kPa"),
        "p_sat": text(saturation, "kPa"),
        "p_top": text(pick(rng, 0, 0.4 * saturation, 0.1), "kPa"),
        "D_AB": text(pick(rng, 2.4, 3.4, 0.1) * 1e-5, "m²/s"),
        "L": text(pick(rng, 50, 200, 10), "mm"),
        "d": text(pick(rng, 10, 30, 2), "mm"),
        "M_A": WATER_MOLAR_MASS,
    }
    asked = "the evaporation rate of the water, in mg/h"
    statement = (
        f"A vertical tube of inner diameter d = {given['d']} holds water at its bottom; the water "
        f"surface is L = {given['L']} below the open top, over which a gentle stream of air flows. "
        f"Everything is at T = {given['T']} and P = {given['P']}. The vapour pressure of water at "
        f"T is p_sat = {given['p_sat']}; the partial pressure of vapour in the air at the top of "
        f"the tube is p_top = {given['p_top']}. The diffusion coefficient of water vapour in air "
        f"is D_AB = {given['D_AB']} and the molar mass of water is M_A = {given['M_A']}. Assume "
        "steady one-dimensional diffusion through stagnant air (air does not dissolve in water), "
        f"ideal gases and a constant water level. Find {asked}."
    )
    return Problem(
        id=f"{NAME}-s{seed}",
        subject="heat_mass_transfer",
        family=NAME,
        seed=seed,
        title="Evaporation from a Stefan tube",
        statement=statement,
        given=given,
        asked=asked,
        answer_value=evaporation_rate(given),
        answer_unit="mg/h",
    )


def draw(problem: Problem) -> bytes:
    """The tube with the water at its bottom, the air stream on top and every given value."""
    given = problem.given
    figure, axes = new_figure()
    left, right, bottom, top = 0.22, 0.34, 0.12, 0.8
    axes.add_patch(Rectangle((left, bottom), right - left, 0.12, facecolor="#7fb3e0"))
    axes.plot([left, left, right, right], [top, bottom, bottom, top], color="k", lw=2)
    axes.text((left + right) / 2, bottom + 0.06, "water", ha="center", va="center", fontsize=8)
    for height in (0.86, 0.92):
        diagrams.arrow(axes, (0.05, height), (0.5, height), color=diagrams.ACCENT, width=1.2)
    axes.text(0.52, 0.89, f"air, p_top = {given['p_top']}", va="center", fontsize=8)
    diagrams.arrow(axes, (0.14, bottom + 0.12), (0.14, top), color="k", width=1.0, both_ends=True)
    axes.text(0.13, 0.5, f"L =\n{given['L']}", ha="right", va="center", fontsize=8)
    diagrams.arrow(axes, (left, 0.06), (right, 0.06), color="k", width=1.0, both_ends=True)
    axes.text((left + right) / 2, 0.02, f"d = {given['d']}", ha="center", fontsize=8)
    axes.annotate(
        f"surface: p_sat = {given['p_sat']}",
        (right, bottom + 0.12),
        (0.42, 0.2),
        fontsize=8,
        arrowprops={"arrowstyle": "->"},
    )
    diagrams.arrow(axes, (0.28, 0.32), (0.28, 0.62), color=diagrams.LOAD, width=1.5)
    axes.text(0.28, 0.65, "vapour", ha="center", fontsize=8, color=diagrams.LOAD)
    lines = [
        f"T = {given['T']}",
        f"P = {given['P']}",
        f"D_AB = {given['D_AB']}",
        f"M_A = {given['M_A']}",
        "air: stagnant in the tube",
    ]
    axes.text(0.55, 0.6, "\n".join(lines), ha="left", va="center", fontsize=8, bbox=GIVEN_BOX)
    asked_mark(axes, (0.72, 0.3), "evaporation rate = ? (mg/h)")
    return diagrams.png_bytes(figure)


FAMILY = Family(
    name=NAME,
    subject="heat_mass_transfer",
    title="Evaporation from a Stefan tube",
    make=make,
    draw=draw,
)
