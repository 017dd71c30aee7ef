"""Small helpers the heat-transfer and thermodynamics families share (no FAMILY here, so the
registry skips this module): the quantity texts a statement and its diagram both show, and their
figure layouts. Seeded draws and PNG bytes: model.py and diagrams.py, as for every family."""

from __future__ import annotations

import pint
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from workbench_plugins.judging.problems import diagrams
from workbench_plugins.judging.problems.model import Q_

GIVEN_BOX = {"boxstyle": "round,pad=0.35", "facecolor": "#f7f9fb", "edgecolor": "#9aa5b1"}
ASKED = diagrams.LOAD  # the colour of "= ?" marks


def quantity(value: str | float, unit: str | None = None) -> pint.Quantity:
    """A quantity of the plugin's one registry, typed for mypy: quantity("25 W/(m²·K)") or
    quantity(22, "degC")."""
    return Q_(value) if unit is None else Q_(value, unit)


def text(value: float, unit: str) -> str:
    """The quantity text a statement and a diagram show, e.g. "25 W/(m²·K)"."""
    number = f"{value:g}"
    return f"{number} {unit}".strip()


def given_lines(given: dict[str, str]) -> str:
    """The given values as 'name = value' lines for a box on a diagram."""
    return "\n".join(f"{name} = {value}" for name, value in given.items())


def new_figure() -> tuple[Figure, Axes]:
    """A blank ~600 x 400 figure (diagrams.new_figure, no pyplot) drawn in unit coordinates:
    x and y both run 0..1 over the whole picture."""
    figure, axes = diagrams.new_figure()
    axes.set_position((0.0, 0.0, 1.0, 1.0))
    axes.set_aspect("auto")
    axes.set_xlim(0.0, 1.0)
    axes.set_ylim(0.0, 1.0)
    return figure, axes


def chart_figure() -> tuple[Figure, Axes, Axes]:
    """A figure with a property chart on the left (with axes and ticks) and a panel on the right
    for the given values and the question (unit coordinates 0..1)."""
    figure, panel = new_figure()
    panel.set_position((0.63, 0.0, 0.37, 1.0))
    chart = figure.add_axes((0.17, 0.13, 0.44, 0.78))
    chart.tick_params(labelsize=8)
    return figure, chart, panel


def asked_mark(axes: Axes, at: tuple[float, float], label: str, **options: object) -> None:
    """The question mark of a diagram, e.g. "T12 = ?", in the asked colour."""
    settings: dict[str, object] = {"ha": "center", "va": "center", "fontsize": 9}
    settings.update(options)
    axes.text(at[0], at[1], label, color=ASKED, fontweight="bold", **settings)  # type: ignore[arg-type]


def article(word: str) -> str:
    """ "An" before a vowel, else "A" (statements start with the material's name)."""
    return "An" if word[:1].lower() in "aeiou" else "A"
