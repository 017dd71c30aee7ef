"""Two masses in a row (wall - k1 - m1 - k2 - m2, frictionless): the lower natural frequency.

Free vibration x = X cos(omega t) gives det(K - omega² M) = 0, a quadratic in omega²:
m1 m2 omega⁴ - (m1 k2 + m2 (k1 + k2)) omega² + k1 k2 = 0; the smaller root is the first mode."""

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

NAME = "two_mass_oscillator"


def make(seed: int) -> Problem:
    """m1, m2 of 1-25 kg, k1, k2 of 0.5-10 kN/m."""
    rng = seeded_random(NAME, seed)
    given = {
        "m1": quantity_text(pick(rng, 1.0, 25.0, 0.5), "kg"),
        "m2": quantity_text(pick(rng, 1.0, 25.0, 0.5), "kg"),
        "k1": quantity_text(pick(rng, 500.0, 10000.0, 250.0), "N/m", digits=5),
        "k2": quantity_text(pick(rng, 500.0, 10000.0, 250.0), "N/m", digits=5),
    }
    statement = (
        f"Two blocks slide without friction on a horizontal floor. Block 1 (m1 = {given['m1']}) "
        f"is attached to a wall by a spring k1 = {given['k1']}; block 2 (m2 = {given['m2']}) is "
        f"attached to block 1 by a spring k2 = {given['k2']} and is otherwise free. There is no "
        "damping. Find the lower (first) natural frequency of the system in Hz."
    )
    return Problem(
        id=problem_id(NAME, seed),
        subject="dynamics",
        family=NAME,
        seed=seed,
        title="Two-mass oscillator",
        statement=statement,
        given=given,
        asked="the lower natural frequency of the two-mass system",
        answer_value=float(first_frequency(given).to("Hz").magnitude),
        answer_unit="Hz",
    )


def first_frequency(given: dict[str, str]) -> pint.Quantity:
    """The smaller root of the frequency equation, as f = omega / 2π (pint quantities)."""
    values = given_quantities(given)
    m1, m2, k1, k2 = values["m1"], values["m2"], values["k1"], values["k2"]
    a = m1 * m2
    b = m1 * k2 + m2 * (k1 + k2)
    c = k1 * k2
    omega_squared = (b - (b**2 - 4 * a * c) ** 0.5) / (2 * a)
    return omega_squared**0.5 / (2 * math.pi)


def draw(problem: Problem) -> bytes:
    """Wall, k1, block 1, k2, block 2 on a frictionless floor, x1 and x2 to the right."""
    given = problem.given
    figure, axes = diagrams.new_figure()
    wall_x, floor_y, height = 0.8, 2.6, 2.0
    spring_y = floor_y + height / 2
    first_x, second_x, width = 4.0, 9.0, 2.0
    diagrams.title(axes, problem.title)
    diagrams.fixed_wall(axes, wall_x, floor_y, floor_y + 3.0, side="left")
    diagrams.ground(axes, wall_x, 11.5, floor_y)
    diagrams.spring(axes, (wall_x, spring_y), (first_x, spring_y), f"k1 = {given['k1']}")
    diagrams.block(axes, (first_x, floor_y), width, height, f"m1 =\n{given['m1']}")
    diagrams.spring(axes, (first_x + width, spring_y), (second_x, spring_y), f"k2 = {given['k2']}")
    diagrams.block(axes, (second_x, floor_y), width, height, f"m2 =\n{given['m2']}")
    for corner, name in ((first_x, "x1"), (second_x, "x2")):
        top = floor_y + height + 0.5
        diagrams.arrow(axes, (corner + 0.4, top), (corner + 1.6, top))
        diagrams.label(axes, (corner + 1.95, top), name)
    diagrams.label(axes, (6.2, floor_y - 0.5), "frictionless floor, no damping", style="italic")
    return diagrams.png_bytes(figure)


FAMILY = Family(
    name=NAME,
    subject="dynamics",
    title="Two-mass oscillator: lower natural frequency",
    make=make,
    draw=draw,
)
