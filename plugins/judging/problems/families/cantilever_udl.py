"""Cantilever with a uniformly distributed load over its whole length: the maximum bending stress.

The bending moment peaks at the clamped end, M = w L² / 2; a rectangular section b x h has
I = b h³ / 12 and its outer fibre at c = h / 2, so sigma_max = M c / I."""

from __future__ import annotations

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

NAME = "cantilever_udl"


def make(seed: int) -> Problem:
    """A 1.5-4 m cantilever, 2-15 kN/m, a solid rectangular section 60-200 mm by 150-400 mm."""
    rng = seeded_random(NAME, seed)
    given = {
        "L": quantity_text(pick(rng, 1.5, 4.0, 0.25), "m"),
        "w": quantity_text(pick(rng, 2.0, 15.0, 0.5), "kN/m"),
        "b": quantity_text(pick(rng, 60.0, 200.0, 10.0), "mm"),
        "h": quantity_text(pick(rng, 150.0, 400.0, 10.0), "mm"),
    }
    statement = (
        f"A cantilever of length L = {given['L']} is clamped at its left end A and free at B. "
        f"It carries a uniformly distributed load w = {given['w']} over its whole length. The "
        f"cross-section is a solid rectangle of width b = {given['b']} and depth h = "
        f"{given['h']} (bending about the horizontal axis). Neglect the beam's own weight. "
        "Find the maximum bending stress in the beam in MPa."
    )
    return Problem(
        id=problem_id(NAME, seed),
        subject="mechanics_of_materials",
        family=NAME,
        seed=seed,
        title="Cantilever with a distributed load",
        statement=statement,
        given=given,
        asked="the maximum bending stress in the beam",
        answer_value=float(max_bending_stress(given).to("MPa").magnitude),
        answer_unit="MPa",
    )


def max_bending_stress(given: dict[str, str]) -> pint.Quantity:
    """sigma = M c / I at the clamped end (pint quantities)."""
    values = given_quantities(given)
    moment = values["w"] * values["L"] ** 2 / 2
    inertia = values["b"] * values["h"] ** 3 / 12
    return moment * (values["h"] / 2) / inertia


def draw(problem: Problem) -> bytes:
    """Clamped beam under the load block, the length dimension and the section b x h."""
    values = given_quantities(problem.given)
    figure, axes = diagrams.new_figure()
    left, right, level = 1.2, 8.2, 4.2
    diagrams.title(axes, problem.title)
    diagrams.fixed_wall(axes, left, level - 1.0, level + 1.0, side="left")
    diagrams.beam(axes, left, right, level, depth=0.4)
    diagrams.distributed_load(axes, left, right, level + 0.2, f"w = {problem.given['w']}")
    diagrams.label(axes, (left - 0.5, level + 1.3), "A", fontweight="bold")
    diagrams.label(axes, (right + 0.35, level + 0.45), "B", fontweight="bold")
    diagrams.dimension(axes, (left, 2.6), (right, 2.6), f"L = {problem.given['L']}")
    _section(
        axes,
        float(values["b"].to("mm").magnitude),
        float(values["h"].to("mm").magnitude),
        problem.given,
    )
    return diagrams.png_bytes(figure)


def _section(axes: diagrams.Axes, width_mm: float, depth_mm: float, given: dict[str, str]) -> None:
    """The cross-section to scale (400 mm = 3 drawing units) with its b and h dimensions."""
    scale = 3.0 / 400.0
    width, depth = width_mm * scale, depth_mm * scale
    centre_x, bottom = 10.2, 2.9
    corner = (centre_x - width / 2, bottom)
    diagrams.block(axes, corner, width, depth)
    diagrams.label(axes, (centre_x, bottom + depth + 0.8), "Section", fontweight="bold")
    diagrams.dimension(
        axes,
        (corner[0], bottom - 0.3),
        (corner[0] + width, bottom - 0.3),
        f"b = {given['b']}",
        offset=(0.0, -0.35),
    )
    diagrams.dimension(
        axes,
        (corner[0] + width + 0.3, bottom),
        (corner[0] + width + 0.3, bottom + depth),
        f"h = {given['h']}",
        offset=(0.35, 0.0),
        rotation=90,
    )


FAMILY = Family(
    name=NAME,
    subject="mechanics_of_materials",
    title="Cantilever with a distributed load: maximum bending stress",
    make=make,
    draw=draw,
)
