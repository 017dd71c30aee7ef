"""The prompt texts of the workflow tasks, one function per style, worded as the reference's.

`prompt_text` renders a task's prompt from its conditions, its problem_config and its draws; it is
a pure function (tasks.build calls it when a cell runs, nothing is stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench_plugins.topopt.bench.draws import Draws, Export

HEAD = "Execute a 2D topology optimization and export the resulting geometry as a 3D-printable STL file.\n\n"  # noqa: E501
# Photonics2D prompts ask for the simulation in every style, as the reference's do.
PHOTONICS_HEAD = "Execute a 2D photonic structure optimization, simulate the result, and export the geometry as a 3D-printable STL file.\n\n"  # noqa: E501
SIMULATION = "2. Simulation\n   - Simulate the optimized design to obtain {name}\n\n"


def describe_volfrac(volfrac: float) -> str:
    if volfrac < 0.3:
        return "lightweight (low material usage)"
    return "moderate material usage" if volfrac < 0.5 else "dense (high material usage)"


def describe_force(forcedist: float) -> str:
    for limit, text in (
        (0.2, "a concentrated force at the bottom left"),
        (0.4, "a force distributed in the lower left region"),
        (0.6, "a force distributed in the middle region"),
        (0.8, "a force distributed in the upper right region"),
    ):
        if forcedist < limit:
            return text
    return "a uniformly distributed force"


def _mirror_text(mirror: bool) -> str:
    return "Mirror the design across the y-axis" if mirror else "Do NOT mirror the design"


def _configuration(problem: str, config: dict[str, Any]) -> str:
    if problem == "beams2d":
        return (
            "1. Optimization Configuration (problem beams2d)\n"
            f"   - Volume Fraction: {config['volfrac']}\n"
            f"   - Force Distribution: {config['forcedist']}\n"
            f"   - Filter Radius (rmin): {config['rmin']}\n"
            "   - Objective: Minimize compliance\n\n"
        )
    return (
        "1. Optimization Configuration (problem photonics2d)\n"
        f"   - lambda1: {config['lambda1']}\n"
        f"   - lambda2: {config['lambda2']}\n"
        f"   - blur_radius: {config['blur_radius']}\n"
        f"   - num_optimization_steps: {config['num_optimization_steps']}\n"
        "   - Objective: Maximize total_overlap\n\n"
    )


def _export_lines(export: Export, indent: str = "   ") -> str:
    return (
        f"{indent}- Thresholding: Apply a {export.threshold:.2f} density threshold\n"
        f"{indent}- Mirror: {_mirror_text(export.mirror_y)}\n"
        f"{indent}- XY Scaling: Scale the X and Y dimensions by {export.scale_xy:.2f}\n"
        f"{indent}- Extrusion: Extrude the 2D result by {export.scale_z:.1f} units in the Z-axis\n"
    )


@dataclass(frozen=True)
class _Sections:
    """The parts the export workflows share: heading, numbered configuration, export title."""

    head: str
    configuration: str  # with Photonics2D's simulation section
    export_title: str


def _sections(problem: str, config: dict[str, Any]) -> _Sections:
    configuration = _configuration(problem, config)
    if problem == "photonics2d":
        return _Sections(
            PHOTONICS_HEAD,
            configuration + SIMULATION.format(name="total_overlap"),
            "3. Post-processing & Export",
        )
    return _Sections(HEAD, configuration, "2. Post-processing & Export")


def _full(conditions: dict[str, Any]) -> str:
    return (
        "Design a 2D beam structure.\n\nDesign requirements:\n"
        f"- Use a material volume fraction of {conditions['volfrac']}\n"
        f"- Force distribution parameter: {conditions['forcedist']}\n"
        f"- Minimum filter radius (rmin): {conditions['rmin']}\n\n"
        "Optimize the structure to minimize compliance while respecting the volume "
        "constraint, simulate it, and render the result."
    )


def _natural(conditions: dict[str, Any]) -> str:
    return (
        "Design a 2D beam structure.\n\nDesign requirements:\n"
        f"- The design should be {describe_volfrac(conditions['volfrac'])}\n"
        f"- Apply {describe_force(conditions['forcedist'])}\n"
        "Optimize the structure to minimize compliance while respecting the volume constraint."
    )


def _random(sections: _Sections, draws: Draws) -> str:
    return (
        sections.head
        + sections.configuration
        + f"{sections.export_title}\n"
        + _export_lines(draws.expected[0])
        + "   - Export: Save the final geometry as an STL file with these exact parameters"
    )


def _derived(sections: _Sections) -> str:
    return (
        HEAD
        + sections.configuration
        + "2. Post-processing & Export (derive the values from these rules)\n"
        "   - Threshold: equal to the volume fraction\n"
        "   - Mirror: mirror across the y-axis only if the volume fraction is above 0.4\n"
        "   - XY Scaling: twice the filter radius (rmin)\n"
        "   - Extrusion: 40 times the threshold, in units along the Z-axis\n"
        "   - Export: Save the final geometry as an STL file with the derived parameters"
    )


def _distract(sections: _Sections, draws: Draws) -> str:
    real, extra = draws.expected[0], draws.extra
    return (
        sections.head + sections.configuration + f"{sections.export_title}\n"
        f"   - Preview threshold (on-screen preview only): {extra['preview_threshold']:.2f}\n"
        f"   - Manufacturing threshold: {real.threshold:.2f}\n"
        f"   - Preview display XY scale (screen only): {extra['preview_scale_xy']:.2f}\n"
        f"   - Manufacturing XY scale: {real.scale_xy:.2f}\n"
        f"   - Mirror: {_mirror_text(real.mirror_y)}\n"
        f"   - Extrusion: Extrude the 2D result by {real.scale_z:.1f} units in the Z-axis\n"
        "   - Export: Save the STL with the manufacturing parameters"
    )


def _conditional(problem: str, config: dict[str, Any], draws: Draws) -> str:
    extra = draws.extra
    high, low = (Export(**extra["branches"][k]) for k in ("high", "low"))
    name = "compliance" if problem == "beams2d" else "total_overlap"
    limit = f"{extra['limit']:.1f}" if problem == "beams2d" else f"{extra['limit']:.2f}"
    return (
        "Execute a 2D topology optimization, simulate the result, then export the geometry as "
        "a 3D-printable STL file with parameters that depend on the simulation outcome.\n\n"
        + _configuration(problem, config)
        + SIMULATION.format(name=name)
        + f"3. Post-processing & Export (conditional on {name})\n"
        f"   - If {name} > {limit}:\n"
        f"     - Thresholding: Apply a {high.threshold:.2f} density threshold\n"
        f"     - Mirror: {_mirror_text(high.mirror_y)}\n"
        f"   - If {name} <= {limit}:\n"
        f"     - Thresholding: Apply a {low.threshold:.2f} density threshold\n"
        f"     - Mirror: {_mirror_text(low.mirror_y)}\n"
        "   - In both cases:\n"
        f"     - XY Scaling: Scale the X and Y dimensions by {high.scale_xy:.2f}\n"
        f"     - Extrusion: Extrude the 2D result by {high.scale_z:.1f} units in the Z-axis\n"
        "   - Export: Save the final geometry as an STL file with these exact parameters"
    )


def _multi(sections: _Sections, draws: Draws) -> str:
    a, b = draws.expected
    return (
        "Execute a 2D topology optimization and export TWO separate STL files.\n\n"
        + sections.configuration
        + "2. Export A\n"
        + _export_lines(a)
        + "3. Export B\n"
        + _export_lines(b)
        + "   - Export: Save A and B as two separate STL files with these exact parameters"
    )


def prompt_text(
    problem: str, style: str, conditions: dict[str, Any], config: dict[str, Any], draws: Draws
) -> str:
    """The prompt of a `style` task; `config` is the problem_config the task optimises with."""
    if style == "FULL":
        return _full(conditions)
    if style == "NATURAL":
        return _natural(conditions)
    if style == "W-COND":
        return _conditional(problem, config, draws)
    sections = _sections(problem, config)
    if style == "W-RAND":
        return _random(sections, draws)
    if style == "W-DERIVED":
        return _derived(sections)
    if style == "W-DISTRACT":
        return _distract(sections, draws)
    return _multi(sections, draws)  # W-MULTI
