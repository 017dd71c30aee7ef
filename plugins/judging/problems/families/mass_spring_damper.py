"""Mass-spring-damper, free vibration: the damped natural frequency.

omega_n = sqrt(k/m), zeta = c / (2 sqrt(k m)), omega_d = omega_n sqrt(1 - zeta²),
f_d = omega_d / 2π.
The damping is drawn so that zeta lies between 0.05 and 0.5 (clearly underdamped)."""

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

NAME = "mass_spring_damper"


def make(seed: int) -> Problem:
    """m 2-50 kg, k 0.5-20 kN/m, c for a damping ratio of 0.05-0.5 (rounded to 1 N·s/m)."""
    rng = seeded_random(NAME, seed)
    mass = pick(rng, 2.0, 50.0, 0.5)
    stiffness = pick(rng, 500.0, 20000.0, 250.0)
    ratio = pick(rng, 0.05, 0.5, 0.01)
    damping = max(1.0, round(2 * ratio * math.sqrt(stiffness * mass)))
    given = {
        "m": quantity_text(mass, "kg"),
        "k": quantity_text(stiffness, "N/m", digits=5),
        "c": quantity_text(damping, "N*s/m", digits=5),
    }
    statement = (
        f"A block of mass m = {given['m']} slides without friction on a horizontal floor. It is "
        f"connected to a wall by a linear spring of stiffness k = {given['k']} and, in parallel, "
        f"a viscous damper with coefficient c = {given['c']}. The block is pulled aside and "
        "released. Find the damped natural frequency f_d of the free vibration in Hz."
    )
    return Problem(
        id=problem_id(NAME, seed),
        subject="dynamics",
        family=NAME,
        seed=seed,
        title="Mass-spring-damper in free vibration",
        statement=statement,
        given=given,
        asked="the damped natural frequency of the free vibration",
        answer_value=float(damped_frequency(given).to("Hz").magnitude),
        answer_unit="Hz",
    )


def damped_frequency(given: dict[str, str]) -> pint.Quantity:
    """f_d = omega_n sqrt(1 - zeta²) / 2π (pint quantities; rad is dimensionless)."""
    values = given_quantities(given)
    natural = (values["k"] / values["m"]) ** 0.5
    ratio = values["c"] / (2 * (values["k"] * values["m"]) ** 0.5)
    return natural * (1 - ratio**2) ** 0.5 / (2 * math.pi)


def draw(problem: Problem) -> bytes:
    """Wall, spring above and damper below in parallel, the block on the floor, x to the right."""
    figure, axes = diagrams.new_figure()
    wall_x, floor_y = 1.5, 2.0
    block_x, block_width, block_height = 7.0, 2.4, 2.6
    diagrams.title(axes, problem.title)
    diagrams.fixed_wall(axes, wall_x, floor_y, floor_y + 3.6, side="left")
    diagrams.ground(axes, wall_x, 11.5, floor_y)
    diagrams.block(axes, (block_x, floor_y), block_width, block_height, f"m = {problem.given['m']}")
    spring_y, damper_y = floor_y + 1.9, floor_y + 0.7
    diagrams.spring(
        axes, (wall_x, spring_y), (block_x, spring_y), f"k = {problem.given['k']}", coils=7
    )
    diagrams.damper(axes, (wall_x, damper_y), (block_x, damper_y), "")
    diagrams.label(axes, ((wall_x + block_x) / 2, floor_y - 0.45), f"c = {problem.given['c']}")
    top = floor_y + block_height + 0.5
    diagrams.arrow(axes, (block_x + block_width / 2, top), (block_x + block_width / 2 + 1.5, top))
    diagrams.label(axes, (block_x + block_width / 2 + 1.9, top), "x")
    diagrams.label(
        axes, (block_x + block_width / 2, floor_y - 0.45), "frictionless", style="italic"
    )
    return diagrams.png_bytes(figure)


FAMILY = Family(
    name=NAME,
    subject="dynamics",
    title="Mass-spring-damper: damped natural frequency",
    make=make,
    draw=draw,
)
