"""What the two desk walkthroughs share: the scripted model's turns for the person's first three
requests (optimise a beam, export it as STL, simulate the spring-mass-damper), and whether a
view's dock is in front."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QDockWidget

from tests.agents.conftest import call, calls, handoff, say

SHORT_BEAM = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0, "max_iter": 3}
SIMULATION = {"model": "SpringMassDamper", "stop_time": 10, "intervals": 200}


def optimise_export_simulate(model_file: Path) -> list[dict[str, Any]]:
    """The model's side of the first three requests, turn after turn (12 replies)."""
    simulate = {**SIMULATION, "file": str(model_file)}
    return [
        # optimise
        handoff("topopt", "Optimise a beam."),
        calls(call("optimize_design", {"problem_type": "beams2d", "problem_config": SHORT_BEAM})),
        say("The beam is optimised."),
        say("Done: the beam is optimised."),
        # export
        handoff("topopt", "Export the beam as STL."),
        calls(call("convert_design_to_stl", {"problem_type": "beams2d", "npy_file_path": "last"})),
        say("Exported."),
        say("The beam is exported as STL."),
        # simulate
        handoff("modelica", "Simulate the spring-mass-damper."),
        calls(call("simulate", simulate)),
        say("Simulated."),
        say("The spring-mass-damper settles."),
    ]


def in_front(dock: QDockWidget) -> bool:
    """Shown and not hidden behind another tab."""
    widget = dock.widget()
    return dock.isVisible() and widget is not None and not widget.visibleRegion().isEmpty()
