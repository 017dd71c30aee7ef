"""Shared drawing helpers for problem diagrams (matplotlib, Agg canvas, no pyplot: safe off the
GUI thread). A diagram is drawn in data coordinates on an equal-aspect axis without ticks, so a
family draws in "metres of paper" and the helpers keep supports, springs and arrows consistent.

Typical use:
    figure, axes = new_figure()
    pin_support(axes, (0, 0)); point_load(axes, (2, 0), "P = 12 kN")
    return png_bytes(figure)
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, Polygon, Rectangle

Point = tuple[float, float]

INK = "#1f2933"
LOAD = "#c0392b"
ACCENT = "#1f6fb2"
FILL = "#dfe7ef"
FONT_SIZE = 10


def new_figure(
    width_px: int = 600,
    height_px: int = 400,
    xlim: tuple[float, float] = (0.0, 12.0),
    ylim: tuple[float, float] = (0.0, 8.0),
) -> tuple[Figure, Axes]:
    """A blank figure (~600x400 px) with an equal-aspect, frameless axis over xlim x ylim."""
    dpi = 100
    figure = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi)
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0.02, 0.01, 0.96, 0.91))
    axes.set_xlim(*xlim)
    axes.set_ylim(*ylim)
    axes.set_aspect("equal", adjustable="box")
    axes.axis("off")
    return figure, axes


def png_bytes(figure: Figure) -> bytes:
    """The figure as PNG bytes at its own size (white background)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", facecolor="white")
    return buffer.getvalue()


def title(axes: Axes, text: str) -> None:
    """A bold caption at the top of the drawing area."""
    axes.set_title(text, fontsize=FONT_SIZE + 1, fontweight="bold", color=INK, pad=2)


def label(axes: Axes, at: Point, text: str, *, color: str = INK, **kwargs: Any) -> None:
    """Text centred at a point (kwargs go to Axes.text, e.g. ha, va, rotation)."""
    options: dict[str, Any] = {"ha": "center", "va": "center", "fontsize": FONT_SIZE}
    options.update(kwargs)
    axes.text(at[0], at[1], text, color=color, **options)


def arrow(
    axes: Axes,
    start: Point,
    end: Point,
    *,
    color: str = LOAD,
    width: float = 1.8,
    both_ends: bool = False,
) -> None:
    """A straight arrow from start to end (head at end; at both ends for dimensions)."""
    style = "<|-|>" if both_ends else "-|>"
    patch = FancyArrowPatch(
        start, end, arrowstyle=style, mutation_scale=14, color=color, linewidth=width
    )
    axes.add_patch(patch)


def point_load(
    axes: Axes, at: Point, text: str, *, length: float = 1.5, direction: Point = (0.0, -1.0)
) -> None:
    """A force arrow whose head touches `at`, pointing along `direction`, labelled at its tail."""
    norm = math.hypot(*direction)
    dx, dy = direction[0] / norm, direction[1] / norm
    tail = (at[0] - dx * length, at[1] - dy * length)
    arrow(axes, tail, at)
    label(axes, (tail[0] - dx * 0.35, tail[1] - dy * 0.35), text, color=LOAD)


def distributed_load(
    axes: Axes, x_start: float, x_end: float, y: float, text: str, *, height: float = 0.9
) -> None:
    """A uniform downward load from x_start to x_end acting on the line y, labelled above."""
    top = y + height
    axes.plot([x_start, x_end], [top, top], color=LOAD, linewidth=1.5)
    count = max(3, round((x_end - x_start) / 0.6) + 1)
    for x in np.linspace(x_start, x_end, count):
        arrow(axes, (float(x), top), (float(x), y), width=1.2)
    label(axes, ((x_start + x_end) / 2, top + 0.35), text, color=LOAD)


def ground(axes: Axes, x_start: float, x_end: float, y: float) -> None:
    """A hatched ground line (the hatch below y)."""
    axes.plot([x_start, x_end], [y, y], color=INK, linewidth=1.5)
    for x in np.arange(x_start, x_end, 0.25):
        axes.plot([x + 0.2, x], [y, y - 0.2], color=INK, linewidth=0.8)


def pin_support(axes: Axes, at: Point, *, size: float = 0.45) -> None:
    """A pin (hinge) support: a triangle under the point on hatched ground."""
    x, y = at
    axes.add_patch(
        Polygon(
            [(x, y), (x - size, y - size * 1.2), (x + size, y - size * 1.2)],
            closed=True,
            facecolor=FILL,
            edgecolor=INK,
            linewidth=1.3,
        )
    )
    ground(axes, x - size * 1.3, x + size * 1.3, y - size * 1.2)


def roller_support(axes: Axes, at: Point, *, size: float = 0.45) -> None:
    """A roller support: a triangle on two wheels on hatched ground."""
    x, y = at
    axes.add_patch(
        Polygon(
            [(x, y), (x - size, y - size), (x + size, y - size)],
            closed=True,
            facecolor=FILL,
            edgecolor=INK,
            linewidth=1.3,
        )
    )
    radius = size * 0.18
    for offset in (-size * 0.5, size * 0.5):
        axes.add_patch(
            Circle((x + offset, y - size - radius), radius, facecolor="white", edgecolor=INK)
        )
    ground(axes, x - size * 1.3, x + size * 1.3, y - size - 2 * radius)


def fixed_wall(axes: Axes, x: float, y_bottom: float, y_top: float, *, side: str = "left") -> None:
    """A clamped wall at x between y_bottom and y_top, hatched on `side` ("left" or "right")."""
    axes.plot([x, x], [y_bottom, y_top], color=INK, linewidth=2.5)
    step = -0.25 if side == "left" else 0.25
    for y in np.arange(y_bottom, y_top, 0.25):
        axes.plot([x, x + step], [y, y + 0.2], color=INK, linewidth=0.8)


def beam(axes: Axes, x_start: float, x_end: float, y: float, *, depth: float = 0.3) -> None:
    """A beam drawn as a filled bar whose top face is at y + depth/2."""
    axes.add_patch(
        Rectangle(
            (x_start, y - depth / 2),
            x_end - x_start,
            depth,
            facecolor=FILL,
            edgecolor=INK,
            linewidth=1.5,
        )
    )


def dimension(
    axes: Axes,
    start: Point,
    end: Point,
    text: str,
    *,
    offset: Point = (0.0, -0.35),
    **text_options: Any,
) -> None:
    """A dimension line with arrows at both ends and its text beside the middle (text_options
    go to Axes.text, e.g. rotation=90 for a vertical dimension)."""
    arrow(axes, start, end, color=INK, width=1.0, both_ends=True)
    middle = ((start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1])
    label(axes, middle, text, **text_options)


def spring(
    axes: Axes, start: Point, end: Point, text: str = "", *, coils: int = 6, width: float = 0.35
) -> None:
    """A zig-zag spring between two points, labelled beside its middle."""
    start_arr, end_arr = np.asarray(start, float), np.asarray(end, float)
    along = end_arr - start_arr
    length = float(np.hypot(*along))
    unit = along / length
    normal = np.array([-unit[1], unit[0]])
    lead = 0.15 * length
    points = [start_arr, start_arr + unit * lead]
    zigzag = np.linspace(lead, length - lead, 2 * coils + 1)
    for index, distance in enumerate(zigzag[1:-1], start=1):
        side = width if index % 2 else -width
        points.append(start_arr + unit * distance + normal * side)
    points += [start_arr + unit * (length - lead), end_arr]
    xs, ys = zip(*points, strict=True)
    axes.plot(xs, ys, color=INK, linewidth=1.4)
    if text:
        middle = (start_arr + end_arr) / 2 + normal * (width + 0.4)
        label(axes, (float(middle[0]), float(middle[1])), text)


def damper(axes: Axes, start: Point, end: Point, text: str = "", *, width: float = 0.35) -> None:
    """A dashpot between two points (cylinder and piston), labelled beside its middle."""
    start_arr, end_arr = np.asarray(start, float), np.asarray(end, float)
    along = end_arr - start_arr
    length = float(np.hypot(*along))
    unit = along / length
    normal = np.array([-unit[1], unit[0]])

    def line(*points: np.ndarray) -> None:
        xs, ys = zip(*points, strict=True)
        axes.plot(xs, ys, color=INK, linewidth=1.4)

    cylinder_start = start_arr + unit * 0.3 * length
    cylinder_end = start_arr + unit * 0.7 * length
    line(start_arr, cylinder_start)
    line(cylinder_start - normal * width, cylinder_start + normal * width)
    line(cylinder_start + normal * width, cylinder_end + normal * width)
    line(cylinder_start - normal * width, cylinder_end - normal * width)
    piston = start_arr + unit * 0.55 * length
    line(piston - normal * width * 0.75, piston + normal * width * 0.75)
    line(piston, end_arr)
    if text:
        middle = (start_arr + end_arr) / 2 - normal * (width + 0.45)
        label(axes, (float(middle[0]), float(middle[1])), text)


def block(axes: Axes, corner: Point, width: float, height: float, text: str = "") -> None:
    """A rigid block (a mass) with its label in the middle."""
    axes.add_patch(Rectangle(corner, width, height, facecolor=FILL, edgecolor=INK, linewidth=1.5))
    if text:
        label(axes, (corner[0] + width / 2, corner[1] + height / 2), text)


def pipe(axes: Axes, points: Sequence[Point], *, width: float = 5.0, color: str = ACCENT) -> None:
    """A pipe run through the points (a thick polyline with a light core)."""
    xs, ys = zip(*points, strict=True)
    axes.plot(xs, ys, color=color, linewidth=width, solid_capstyle="butt")
    axes.plot(xs, ys, color="white", linewidth=width * 0.35, solid_capstyle="butt")


def flow_arrow(axes: Axes, start: Point, end: Point, text: str = "") -> None:
    """A flow direction arrow (blue) with an optional label above it."""
    arrow(axes, start, end, color=ACCENT, width=1.6)
    if text:
        label(axes, ((start[0] + end[0]) / 2, max(start[1], end[1]) + 0.35), text, color=ACCENT)


def node(axes: Axes, at: Point, text: str = "", *, offset: Point = (0.0, 0.4)) -> None:
    """A junction dot with its name."""
    axes.add_patch(Circle(at, 0.12, facecolor=INK, edgecolor=INK, zorder=5))
    if text:
        label(axes, (at[0] + offset[0], at[1] + offset[1]), text, fontweight="bold")


def given_box(axes: Axes, given: Mapping[str, str], at: Point, *, header: str = "Given") -> None:
    """A framed list "name = value" so every given value is readable on the diagram."""
    lines = [header] + [f"{name} = {value}" for name, value in given.items()]
    axes.text(
        at[0],
        at[1],
        "\n".join(lines),
        ha="left",
        va="top",
        fontsize=FONT_SIZE - 1,
        color=INK,
        family="DejaVu Sans",
        bbox={"boxstyle": "round,pad=0.4", "facecolor": "#f7f9fb", "edgecolor": "#9aa5b1"},
    )
