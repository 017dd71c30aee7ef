"""The topology optimisation tools, with the reference implementation's names and arguments
(EngiAI, spec section 1).

arguments.py and results.py hold the schemas; problems.py the describing tools and the question
to the engineer; optimize.py the optimiser run; evaluate.py simulate and render; export.py the
STL export. Designs, histories, renders and STL files are stored as artifacts; optimised designs
become ledger candidates with their mechanical invariants adjudicated as evidence.
"""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.topopt.tools.arguments import (
    ClarifyArgs,
    CreateArgs,
    OptimizeArgs,
    ProblemArgs,
    RenderArgs,
    SimulateArgs,
    StlArgs,
)
from workbench_plugins.topopt.tools.evaluate import (
    design_path,
    render_design,
    render_paths,
    simulate_design,
)
from workbench_plugins.topopt.tools.export import convert_design_to_stl, stl_paths
from workbench_plugins.topopt.tools.optimize import optimize_design
from workbench_plugins.topopt.tools.problems import (
    ask_human_for_clarification,
    create_problem,
    get_problem_details,
)
from workbench_plugins.topopt.tools.results import (
    ClarifyResult,
    OptimizeResult,
    ProblemInfo,
    RenderResult,
    SimulateResult,
    StlResult,
)


def tools() -> list[Tool]:
    return [
        Tool(
            "create_problem",
            "Create an EngiBench problem (beams2d or photonics2d) and describe its design "
            "space, objectives and conditions.",
            CreateArgs,
            ProblemInfo,
            create_problem,
            SideEffect.READ,
        ),
        Tool(
            "get_problem_details",
            "Design space shape and bounds, objectives, conditions and their defaults.",
            ProblemArgs,
            ProblemInfo,
            get_problem_details,
            SideEffect.READ,
        ),
        Tool(
            "optimize_design",
            "Run EngiBench's topology optimiser from the problem's default start; streams every "
            "iteration; returns initial/final objectives and the saved design path.",
            OptimizeArgs,
            OptimizeResult,
            optimize_design,
            SideEffect.COMPUTE,
        ),
        Tool(
            "simulate_design",
            "Evaluate a design's objective: 'last'/'optimized', 'initial', 'random' or an .npy.",
            SimulateArgs,
            SimulateResult,
            simulate_design,
            SideEffect.COMPUTE,
            files=design_path,
        ),
        Tool(
            "render_design",
            "Draw a design as a PNG (and save its .npy).",
            RenderArgs,
            RenderResult,
            render_design,
            SideEffect.WRITE,
            files=render_paths,
        ),
        Tool(
            "convert_design_to_stl",
            "Export a design as a closed, watertight STL solid: threshold, XY scale (mm/pixel), "
            "Z extrusion (mm), optional mirror.",
            StlArgs,
            StlResult,
            convert_design_to_stl,
            SideEffect.WRITE,
            files=stl_paths,
        ),
        Tool(
            "ask_human_for_clarification",
            "Ask the engineer a question when the request is ambiguous or lacks numbers.",
            ClarifyArgs,
            ClarifyResult,
            ask_human_for_clarification,
            SideEffect.READ,
        ),
    ]
