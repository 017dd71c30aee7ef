"""Simply supported steel beam with one point load anywhere on the span: the maximum deflection.

Closed form (load P at a from A, b = L - a from B, b <= a): the deflection peaks between A and the
load at x_m = sqrt((L² - b²)/3) from A, with y_max = P b (L² - b²)^(3/2) / (9 √3 E I L)."""

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

NAME = "beam_point_load"
SECTIONS = {"IPE 200": 1943.0, "IPE 240": 3892.0, "IPE 300": 8356.0, "IPE 360": 16270.0}


def make(seed: int) -> Problem:
    """A span of 3-8 m, a load of 5-40 kN at 20-80 % of the span, an IPE section of steel."""
    rng = seeded_random(NAME, seed)
    span = pick(rng, 3.0, 8.0, 0.5)
    position = round(span * pick(rng, 0.2, 0.8, 0.05), 1)
    section = rng.choice(sorted(SECTIONS))
    given = {
        "L": quantity_text(span, "m"),
        "a": quantity_text(position, "m"),
        "P": quantity_text(pick(rng, 5.0, 40.0, 1.0), "kN"),
        "E": quantity_text(rng.choice([200.0, 210.0]), "GPa"),
        "I": quantity_text(SECTIONS[section], "cm**4", digits=5),
    }
    statement = (
        f"A simply supported steel beam ({section}) spans L = {given['L']} between a pin support "
        f"A and a roller support B. A point load P = {given['P']} acts downward at a = "
        f"{given['a']} from A. Young's modulus E = {given['E']}, second moment of area "
        f"I = {given['I']}. Neglect the beam's own weight. Find the maximum deflection of the "
        "beam in mm."
    )
    return Problem(
        id=problem_id(NAME, seed),
        subject="mechanics_of_materials",
        family=NAME,
        seed=seed,
        title="Simply supported beam with a point load",
        statement=statement,
        given=given,
        asked="the maximum deflection of the beam",
        answer_value=float(max_deflection(given).to("mm").magnitude),
        answer_unit="mm",
    )


def max_deflection(given: dict[str, str]) -> pint.Quantity:
    """y_max from the closed form, with the shorter load distance as b (pint quantities)."""
    values = given_quantities(given)
    span, load = values["L"], values["P"]
    stiffness = values["E"] * values["I"]
    short = min(values["a"], span - values["a"])
    return load * short * (span**2 - short**2) ** 1.5 / (9 * math.sqrt(3) * stiffness * span)


def draw(problem: Problem) -> bytes:
    """Beam on a pin and a roller, the load arrow at a, the dimensions L and a, E and I listed."""
    values = given_quantities(problem.given)
    span = float(values["L"].to("m").magnitude)
    position = float(values["a"].to("m").magnitude)
    figure, axes = diagrams.new_figure()
    left, right, level = 1.0, 11.0, 4.0
    scale = (right - left) / span
    load_x = left + position * scale
    diagrams.title(axes, problem.title)
    diagrams.beam(axes, left, right, level)
    diagrams.pin_support(axes, (left, level - 0.15))
    diagrams.roller_support(axes, (right, level - 0.15))
    diagrams.label(axes, (left - 0.45, level + 0.45), "A", fontweight="bold")
    diagrams.label(axes, (right + 0.45, level + 0.45), "B", fontweight="bold")
    diagrams.point_load(axes, (load_x, level + 0.15), f"P = {problem.given['P']}", length=2.2)
    diagrams.dimension(axes, (left, 2.4), (right, 2.4), f"L = {problem.given['L']}")
    diagrams.dimension(
        axes, (left, 4.9), (load_x, 4.9), f"a = {problem.given['a']}", offset=(0.0, 0.3)
    )
    diagrams.given_box(
        axes, {"E": problem.given["E"], "I": problem.given["I"]}, (0.3, 1.7), header="Section"
    )
    return diagrams.png_bytes(figure)


FAMILY = Family(
    name=NAME,
    subject="mechanics_of_materials",
    title="Simply supported beam with a point load: maximum deflection",
    make=make,
    draw=draw,
)
