"""Topology optimisation (EngiBench Beams2D and Photonics2D): live densities, watertight STL."""

from workbench.core.plugins import Plugin, ViewSpec
from workbench_plugins.topopt.agent import specialist

plugin = Plugin(
    name="topopt",
    title="Topology optimisation",
    description="EngiBench Beams2D and Photonics2D, offline; designs, renders and watertight STL.",
    tools="workbench_plugins.topopt.tools:tools",
    specialist=specialist,
    suites="workbench_plugins.topopt.workflow.suite:suites",
    views=(
        ViewSpec("topopt.density", "Density", "workbench_plugins.topopt.views:density_view"),
        ViewSpec("topopt.stl", "STL", "workbench_plugins.topopt.views:stl_view"),
    ),
)
