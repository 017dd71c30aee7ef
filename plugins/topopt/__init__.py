"""Topology optimisation (EngiBench Beams2D and Photonics2D): live densities, watertight STL."""

from workbench.core.plugins import Plugin
from workbench_plugins.topopt.agent import specialist

plugin = Plugin(
    name="topopt",
    title="Topology optimisation",
    description="EngiBench Beams2D and Photonics2D, offline; designs, renders and watertight STL.",
    tools="workbench_plugins.topopt.tools:tools",
    specialist=specialist,
)
