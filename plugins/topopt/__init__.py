"""Topology optimisation (EngiBench Beams2D and Photonics2D): live densities, watertight STL.

problems.py, engine.py   problem configs, checked; EngiBench set-up, simulate, optimise, render
optimization_worker.py   the optimisation as it runs in a worker process, streaming frames
photonics_fast.py        faster Photonics2D solves (photonics_factors.py: orderings, LU cache)
library_overrides.py     replacing a library function for one call's context only
designs.py, candidates.py, stl.py   stored designs, ledger candidates, watertight STL export
specialist.py            the topopt specialist;  tools/: its tools;  views/: density, STL (Qt)
bench/                   the EngiAI workflow suites;  perf.py: the engine's speed measurements
"""

from workbench.core.plugins import PLOT_GUI_IMPORTS, Plugin, ViewSpec
from workbench_plugins.topopt.specialist import specialist

plugin = Plugin(
    name="topopt",
    title="Topology optimisation",
    description="EngiBench Beams2D and Photonics2D, offline; designs, renders and watertight STL.",
    tools="workbench_plugins.topopt.tools:tools",
    specialist=specialist,
    suites="workbench_plugins.topopt.bench:suites",
    views=(
        ViewSpec(
            "topopt.density",
            "Density",
            "workbench_plugins.topopt.views:density_view",
            shows=("create_problem", "optimize_design", "simulate_design", "render_design"),
            gui_imports=PLOT_GUI_IMPORTS,  # pyqtgraph: its Qt types a module per turn
        ),
        ViewSpec(
            "topopt.stl",
            "STL",
            "workbench_plugins.topopt.views:stl_view",
            shows=("convert_design_to_stl",),
            warm_up="workbench_plugins.topopt.vtk_preload:preload",  # VTK off the GUI thread
            gui_imports=("qtpy.QtCore", "qtpy.QtGui", "qtpy.QtWidgets", "pyvistaqt"),
        ),
    ),
)
