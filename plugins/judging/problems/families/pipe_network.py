"""Pipe 1 in series with two parallel pipes 2 and 3 (water, friction factors given): the head loss
from A to C by Darcy-Weisbach.

Each pipe loses h = f (L/D) V²/(2g) = r Q² with r = 8 f L / (π² g D⁵). The parallel pipes share
the head loss, r2 Q2² = r3 Q3², and the flow, Q2 + Q3 = Q; so Q2 = Q / (1 + sqrt(r2/r3)) and
h_AC = r1 Q² + r2 Q2². Minor losses are neglected."""

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

NAME = "pipe_network"
PIPES = ("1", "2", "3")


def make(seed: int) -> Problem:
    """Q 20-80 L/s; pipes of 100-800 m, 100-300 mm, f 0.015-0.030."""
    rng = seeded_random(NAME, seed)
    given = {"Q": quantity_text(pick(rng, 20.0, 80.0, 5.0), "L/s")}
    for pipe in PIPES:
        given[f"L{pipe}"] = quantity_text(pick(rng, 100.0, 800.0, 50.0), "m")
        given[f"D{pipe}"] = quantity_text(pick(rng, 150.0, 300.0, 25.0), "mm")
        given[f"f{pipe}"] = quantity_text(pick(rng, 0.015, 0.030, 0.001), "")
    given["g"] = quantity_text(9.81, "m/s**2")
    pipe_texts = "; ".join(
        f"pipe {p}: L{p} = {given[f'L{p}']}, D{p} = {given[f'D{p}']}, f{p} = {given[f'f{p}']}"
        for p in PIPES
    )
    statement = (
        f"Water flows at Q = {given['Q']} from A through pipe 1 to junction B, where it divides "
        "between the parallel pipes 2 and 3, which join again at C. The pipes are "
        f"{pipe_texts}. Take the Darcy friction factors as constant, g = {given['g']}, and "
        "neglect minor losses. Find the total head loss from A to C in m."
    )
    return Problem(
        id=problem_id(NAME, seed),
        subject="fluid_mechanics",
        family=NAME,
        seed=seed,
        title="Pipes in series and parallel",
        statement=statement,
        given=given,
        asked="the total head loss from A to C",
        answer_value=float(head_loss(given).to("m").magnitude),
        answer_unit="m",
    )


def resistance(values: dict[str, pint.Quantity], pipe: str) -> pint.Quantity:
    """r = 8 f L / (π² g D⁵): the head loss of a pipe is r Q²."""
    friction, length, diameter = values[f"f{pipe}"], values[f"L{pipe}"], values[f"D{pipe}"]
    return 8 * friction * length / (math.pi**2 * values["g"] * diameter**5)


def head_loss(given: dict[str, str]) -> pint.Quantity:
    """h_AC = r1 Q² + r2 Q2² with the flow split that equalises the parallel losses."""
    values = given_quantities(given)
    flow = values["Q"]
    r1, r2, r3 = (resistance(values, pipe) for pipe in PIPES)
    upper_flow = flow / (1 + (r2 / r3) ** 0.5)
    return r1 * flow**2 + r2 * upper_flow**2


def draw(problem: Problem) -> bytes:
    """A - pipe 1 - B, then pipes 2 (upper) and 3 (lower) to C, each labelled with L, D, f."""
    given = problem.given
    figure, axes = diagrams.new_figure()
    a, b, c = (0.6, 4.0), (4.6, 4.0), (10.6, 4.0)
    diagrams.title(axes, problem.title)
    diagrams.pipe(axes, [a, b])
    diagrams.pipe(axes, [b, (b[0], 6.0), (c[0], 6.0), c])
    diagrams.pipe(axes, [b, (b[0], 2.0), (c[0], 2.0), c])
    diagrams.pipe(axes, [c, (11.6, 4.0)])
    for point, name, offset in ((a, "A", (0.0, 0.45)), (b, "B", (-0.4, 0.4)), (c, "C", (0.4, 0.4))):
        diagrams.node(axes, point, name, offset=offset)
    diagrams.flow_arrow(axes, (0.9, 4.9), (2.5, 4.9), f"Q = {given['Q']}")
    diagrams.label(axes, (2.6, 2.9), _pipe_text(given, "1", one_line=False))
    diagrams.label(axes, (7.6, 6.6), _pipe_text(given, "2", one_line=True))
    diagrams.label(axes, (7.6, 1.4), _pipe_text(given, "3", one_line=True))
    diagrams.flow_arrow(axes, (7.0, 5.3), (8.2, 5.3), "Q2")
    diagrams.flow_arrow(axes, (7.0, 2.5), (8.2, 2.5), "Q3")
    diagrams.label(axes, (10.9, 0.5), f"g = {given['g']}", fontsize=9)
    return diagrams.png_bytes(figure)


def _pipe_text(given: dict[str, str], pipe: str, *, one_line: bool) -> str:
    """'Pipe 2: L2 = 300 m, D2 = 150 mm, f2 = 0.02' on one line, or one value per line."""
    parts = [f"{name}{pipe} = {given[f'{name}{pipe}']}" for name in ("L", "D", "f")]
    if one_line:
        return f"Pipe {pipe}: " + ", ".join(parts)
    return "\n".join([f"Pipe {pipe}:", *parts])


FAMILY = Family(
    name=NAME,
    subject="fluid_mechanics",
    title="Pipes in series and parallel: head loss (Darcy-Weisbach)",
    make=make,
    draw=draw,
)
