"""Composite plane wall with convection on both sides: a thermal resistance network in series.

Asks either the heat flux through the wall or the temperature of one interface between layers.
Ground truth with pint: q'' = (T_in - T_out) / (1/h_in + sum L/k + 1/h_out)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from workbench_plugins.judging.problems import diagrams
from workbench_plugins.judging.problems.families._thermal import (
    ASKED,
    GIVEN_BOX,
    new_figure,
    quantity,
    text,
)
from workbench_plugins.judging.problems.model import Family, Problem, pick, seeded_random

NAME = "thermal_wall"


@dataclass(frozen=True)
class Material:
    """A wall material: conductivity and thickness ranges (W/(m·K), mm) and a colour to draw it."""

    name: str
    conductivity: tuple[float, float, float]
    thickness: tuple[float, float, float]
    colour: str


MATERIALS = (
    Material("gypsum plaster", (0.2, 0.5, 0.02), (10, 25, 1), "#e8e2cf"),
    Material("mineral-wool insulation", (0.032, 0.048, 0.002), (40, 120, 5), "#f4d35e"),
    Material("brick", (0.6, 1.0, 0.05), (100, 240, 10), "#c8553d"),
    Material("concrete", (1.2, 1.8, 0.1), (100, 200, 10), "#9a9a9a"),
)


def layer_resistances(given: dict[str, str]) -> list[object]:
    """Unit-area resistances in flow order: inside film, the layers, outside film (pint)."""
    resistances: list[object] = [1 / quantity(given["h_in"])]
    layer = 1
    while f"L{layer}" in given:
        resistances.append(quantity(given[f"L{layer}"]) / quantity(given[f"k{layer}"]))
        layer += 1
    resistances.append(1 / quantity(given["h_out"]))
    return resistances


def wall_answer(given: dict[str, str], interface: int) -> tuple[float, str]:
    """Heat flux (interface 0) or the temperature after layer `interface`, from the given texts."""
    inside = quantity(_celsius(given["T_in"]), "degC").to("K")
    outside = quantity(_celsius(given["T_out"]), "degC").to("K")
    resistances = layer_resistances(given)
    total = sum(resistances[1:], resistances[0])  # type: ignore[call-overload]
    flux = ((inside - outside) / total).to("W/m**2")
    if interface == 0:
        return float(flux.magnitude), "W/m**2"
    upstream = sum(resistances[1 : interface + 1], resistances[0])  # type: ignore[call-overload]
    temperature = (inside - flux * upstream).to("degC")
    return float(temperature.magnitude), "degC"


def _celsius(quantity_text: str) -> float:
    """The number of a "22 °C" text (pint does not parse offset units inside a product)."""
    return float(quantity_text.split()[0])


def layers_of(seed: int) -> list[Material]:
    """The materials of the problem with this seed, inside to outside (the first draw of make)."""
    return seeded_random(NAME, seed).sample(MATERIALS, 3)


def make(seed: int) -> Problem:
    """A three-layer wall, inside air on the left, outside air on the right."""
    rng = seeded_random(NAME, seed)
    layers = rng.sample(MATERIALS, 3)  # first draw: layers_of(seed) repeats it for the diagram
    given: dict[str, str] = {
        "T_in": text(pick(rng, 18, 26, 1), "°C"),
        "h_in": text(pick(rng, 5, 12, 0.5), "W/(m²·K)"),
    }
    descriptions = []
    for number, material in enumerate(layers, start=1):
        given[f"L{number}"] = text(pick(rng, *material.thickness), "mm")
        given[f"k{number}"] = text(pick(rng, *material.conductivity), "W/(m·K)")
        descriptions.append(
            f"layer {number}, {material.name}: L{number} = {given[f'L{number}']}, "
            f"k{number} = {given[f'k{number}']}"
        )
    given["T_out"] = text(pick(rng, -15, 5, 1), "°C")
    given["h_out"] = text(pick(rng, 15, 40, 1), "W/(m²·K)")
    interface = rng.choice((0, 1, 2))
    value, unit = wall_answer(given, interface)
    if interface == 0:
        asked = "the heat flux through the wall, in W/m²"
    else:
        asked = (
            f"the temperature T{interface}{interface + 1} of the interface between layer "
            f"{interface} and layer {interface + 1}, in °C"
        )
    statement = (
        "A plane wall is built of three layers in series, numbered from the inside (left) to the "
        f"outside (right): {'; '.join(descriptions)}. Inside air is at T_in = {given['T_in']} "
        f"with a convection coefficient h_in = {given['h_in']}; outside air is at "
        f"T_out = {given['T_out']} with h_out = {given['h_out']}. Assume steady one-dimensional "
        "conduction, constant properties, perfect contact between the layers and no radiation. "
        f"Find {asked}."
    )
    return Problem(
        id=f"{NAME}-s{seed}",
        subject="heat_mass_transfer",
        family=NAME,
        seed=seed,
        title="Composite wall with convection on both sides",
        statement=statement,
        given=given,
        asked=asked,
        answer_value=value,
        answer_unit=unit,
    )


def asked_interface(problem: Problem) -> int:
    """0 when the flux is asked, else the number of the layer before the asked interface."""
    for interface in (1, 2):
        if f"T{interface}{interface + 1}" in problem.asked:
            return interface
    return 0


def _draw_wall(axes: Axes, problem: Problem) -> list[float]:
    """The layers as coloured slabs with L and k; returns the x of each face (left to right)."""
    given = problem.given
    faces = [0.30]
    width = 0.15
    for number, material in enumerate(layers_of(problem.seed), start=1):
        left = faces[-1]
        axes.add_patch(
            Rectangle((left, 0.38), width, 0.5, facecolor=material.colour, edgecolor="k")
        )
        axes.text(left + width / 2, 0.83, f"layer {number}", ha="center", fontsize=8)
        axes.text(left + width / 2, 0.73, material.name.split()[0], ha="center", fontsize=7)
        axes.text(
            left + width / 2,
            0.55,
            f"L{number} = {given[f'L{number}']}\nk{number} =\n{given[f'k{number}']}",
            ha="center",
            va="center",
            fontsize=7,
        )
        faces.append(left + width)
    return faces


def _draw_circuit(axes: Axes, problem: Problem, faces: list[float]) -> None:
    """The series resistance network under the wall: T_in -- 1/h_in -- R1 -- R2 -- R3 -- 1/h_out."""
    y = 0.2
    nodes = [0.08, *faces, 0.92]
    labels = ["1/h_in", "L1/k1", "L2/k2", "L3/k3", "1/h_out"]
    axes.plot([nodes[0], nodes[-1]], [y, y], color="k", lw=1)
    for left, right, label in zip(nodes[:-1], nodes[1:], labels, strict=True):
        middle = (left + right) / 2
        zig_x = [middle - 0.04 + 0.01 * i for i in range(9)]
        zig_y = [y + (0.025 if i % 2 else -0.025) if 0 < i < 8 else y for i in range(9)]
        axes.add_patch(Rectangle((middle - 0.045, y - 0.03), 0.09, 0.06, color="white"))
        axes.plot(zig_x, zig_y, color="k", lw=1)
        axes.text(middle, y - 0.08, label, ha="center", fontsize=7)
    for x in nodes:
        axes.plot(x, y, "o", color="k", ms=3)
    axes.text(nodes[0], y + 0.05, "T_in", ha="center", fontsize=7)
    axes.text(nodes[-1], y + 0.05, "T_out", ha="center", fontsize=7)
    interface = asked_interface(problem)
    if interface:
        x = faces[interface]
        axes.annotate(
            f"T{interface}{interface + 1} = ?",
            (x, 0.38),
            (x, 0.31),
            ha="center",
            fontsize=8,
            color=ASKED,
            arrowprops={"arrowstyle": "->", "color": ASKED},
        )


def draw(problem: Problem) -> bytes:
    """The wall between two air spaces, the given values, and its resistance network."""
    figure, axes = new_figure()
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    given = problem.given
    axes.add_patch(Rectangle((0.02, 0.38), 0.28, 0.5, facecolor="#dcecf8"))
    axes.add_patch(Rectangle((0.75, 0.38), 0.23, 0.5, facecolor="#dcecf8"))
    faces = _draw_wall(axes, problem)
    axes.text(0.15, 0.68, "inside air", ha="center", fontsize=8)
    axes.text(0.15, 0.5, f"T_in = {given['T_in']}\nh_in = {given['h_in']}", **_box())
    axes.text(0.865, 0.68, "outside air", ha="center", fontsize=8)
    axes.text(0.865, 0.5, f"T_out = {given['T_out']}\nh_out = {given['h_out']}", **_box())
    flux_asked = asked_interface(problem) == 0
    colour = ASKED if flux_asked else "k"
    axes.annotate(
        "q'' = ?" if flux_asked else "q''",
        (0.98, 0.93),
        (0.02, 0.93),
        va="center",
        fontsize=8,
        color=colour,
        arrowprops={"arrowstyle": "->", "color": colour},
    )
    _draw_circuit(axes, problem, faces)
    axes.text(0.5, 0.02, problem.title, ha="center", fontsize=8, style="italic")
    return diagrams.png_bytes(figure)


def _box() -> dict[str, Any]:
    return {"ha": "center", "va": "center", "fontsize": 7, "bbox": GIVEN_BOX}


FAMILY = Family(
    name=NAME,
    subject="heat_mass_transfer",
    title="Composite wall with convection on both sides",
    make=make,
    draw=draw,
)
