"""What a problem is: a statement with given values, a diagram that shows the same values, and a
ground-truth answer with units that our own code computed (pint), so every answer is checkable.

One unit registry (UREG) for the whole plugin: pint refuses to mix quantities of two registries."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import pint

Subject = Literal[
    "fluid_mechanics",
    "heat_mass_transfer",
    "dynamics",
    "mechanics_of_materials",
    "thermodynamics",
]
SUBJECTS: tuple[Subject, ...] = (
    "fluid_mechanics",
    "heat_mass_transfer",
    "dynamics",
    "mechanics_of_materials",
    "thermodynamics",
)

UREG: pint.UnitRegistry = pint.UnitRegistry()
Q_ = UREG.Quantity


@dataclass(frozen=True)
class Problem:
    """One generated problem; `id` is f"{family}-s{seed}" so it can be made again from its name."""

    id: str
    subject: Subject
    family: str
    seed: int
    title: str
    statement: str  # asks for ONE quantity; every given value is also on the diagram
    given: dict[str, str]  # name -> quantity text with units, e.g. {"L": "4 m"}
    asked: str  # what is asked, e.g. "the maximum deflection of the beam"
    answer_value: float  # ground truth in answer_unit
    answer_unit: str  # pint-parsable, e.g. "mm"

    def answer(self) -> pint.Quantity:
        """The ground truth as a quantity of UREG."""
        return Q_(self.answer_value, self.answer_unit)

    def diagram_png(self) -> bytes:
        """The family's diagram of this problem as PNG bytes (drawn on demand, not stored)."""
        draw = _DRAWERS.get(self.family)
        if draw is None:
            raise LookupError(
                f"no problem family {self.family!r} has been loaded; make problems with "
                "registry.problem(id) or registry.problem_set()"
            )
        return draw(self)


@dataclass(frozen=True)
class Family:
    """A kind of problem: `make(seed)` is deterministic; `draw(problem)` renders its diagram."""

    name: str
    subject: Subject
    title: str
    make: Callable[[int], Problem]
    draw: Callable[[Problem], bytes]

    def __post_init__(self) -> None:
        # a Problem finds its drawing through its family's name without importing the registry
        _DRAWERS[self.name] = self.draw


# family name -> draw, filled as each Family is created (registry.families() imports them all)
_DRAWERS: dict[str, Callable[[Problem], bytes]] = {}


def problem_id(family: str, seed: int) -> str:
    """The id a problem of this family and seed has: registry.problem() parses it back."""
    return f"{family}-s{seed}"


def seeded_random(family: str, seed: int) -> random.Random:
    """A generator that depends on the family name and the seed only (not on Python's hash
    salt), so a problem is the same on every machine and run."""
    return random.Random(f"{family}:{seed}")


def quantity_text(value: float, unit: str, *, digits: int = 3) -> str:
    """A value with its unit as a statement shows it, e.g. "12 kN", "0.025 m³/s" (`digits`
    significant digits, plain decimals between 1e-4 and 1e6; pint parses the text back)."""
    pretty = f"{UREG.Unit(unit):~P}" if unit else ""
    return f"{number_text(value, digits=digits)} {pretty}".strip()


def number_text(value: float, *, digits: int = 3) -> str:
    """A number rounded to `digits` significant digits without a needless exponent."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    magnitude = math.floor(math.log10(abs(value)))
    if not -4 <= magnitude < 6:
        return f"{value:.{digits - 1}e}"
    decimals = max(0, digits - 1 - magnitude)
    text = f"{round(value, digits - 1 - magnitude):.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def given_quantities(given: dict[str, str]) -> dict[str, pint.Quantity]:
    """The given texts ("12 kN", "40 °C") as quantities: the ground truth is computed from exactly
    what the statement and the diagram show. Number and unit are parsed apart, so offset units
    such as °C stay plain quantities (no pint 'ambiguous offset' error)."""
    quantities: dict[str, pint.Quantity] = {}
    for name, text in given.items():
        number, _, unit = text.strip().partition(" ")
        try:
            quantities[name] = Q_(float(number), unit.strip() or "dimensionless")
        except (ValueError, pint.errors.PintError) as error:
            raise ValueError(
                f"given value {name} = {text!r} is not '<number> <unit>': {error}"
            ) from error
    return quantities


def pick(rng: random.Random, low: float, high: float, step: float) -> float:
    """A value on the grid low, low + step, ... <= high: statements show round numbers."""
    count = round((high - low) / step)
    return round(low + step * rng.randint(0, count), 10)
