"""Workflow tasks: conditions from our seeded sampler, export parameters in the reference's draw
order (draws.py) and the reference's prompt texts (prompts.py), so (seed, example) gives the
reference's values.

A prompt is a pure function of (problem, style, seed, example): nothing is stored, the suite
builds it when a cell runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench_plugins.topopt.bench.draws import Draws, draws_for
from workbench_plugins.topopt.bench.prompts import prompt_text
from workbench_plugins.topopt.problems import Photonics2DConfig

BEAMS_STYLES = ("FULL", "NATURAL", "W-RAND", "W-DERIVED", "W-DISTRACT", "W-COND", "W-MULTI")
PHOTONICS_STYLES = ("W-RAND", "W-DISTRACT", "W-COND")
PROBLEMS = ("beams2d", "photonics2d")
EXAMPLES = 5  # the paper's 5 samples per seed

# Ranges of our sampler: Beams2D as EngiBench's IMPL bounds narrowed to where the dataset's
# designs live; Photonics2D as EngiBench's own dataset script (lambda1, lambda2, blur 0..4).
BEAMS_RANGES = {"volfrac": (0.15, 0.55), "forcedist": (0.0, 1.0), "rmin": (1.5, 4.0)}
PHOTONICS_RANGES = {"lambda1": (0.5, 1.25), "lambda2": (0.75, 1.5), "blur_radius": (0, 4)}
# Photonics ground truth and tasks use a reduced Adam step count: EngiBench's 200 steps take
# ~35 s per optimisation even on our fast path, twice per cell (agent and ground truth) on
# 2 cores. 20 steps already give overlaps in the dataset's range (reference: median 0.29);
# the prompt states the count so agents match it.
PHOTONICS_STEPS = 20
# `bench --preset paper`: EngiBench's default optimiser settings, as the EngiAI paper ran them
# (Photonics2D: 200 Adam steps, the tool's own default; Beams2D's defaults are the same in both).
# The fast default has no name on the command line; the report calls it "fast".
PAPER = "paper"
PRESETS = (PAPER,)
PRESET_STEPS = {"": PHOTONICS_STEPS, PAPER: Photonics2DConfig().num_optimization_steps}


def preset_name(preset: str) -> str:
    """What the report calls a preset: "fast" for the default ("")."""
    return preset or "fast"


@dataclass(frozen=True)
class TaskSpec:
    problem: str
    style: str
    seed: int
    example: int
    conditions: dict[str, Any]
    config: dict[str, Any]  # problem_config for optimize_design
    prompt: str
    optimal_calls: tuple[str, ...]
    draws: Draws

    @property
    def objective(self) -> str:
        return "c" if self.problem == "beams2d" else "total_overlap"


# -- conditions -------------------------------------------------------------------------------
def sample_conditions(problem: str, seed: int, example: int) -> dict[str, Any]:
    """Example i of seed s: the i-th draw of one generator per (problem, seed), so an example's
    conditions do not depend on how many examples are asked for."""
    rng = np.random.default_rng([seed, PROBLEMS.index(problem)])
    drawn: dict[str, Any] = {}
    for _ in range(example + 1):
        if problem == "beams2d":
            drawn = {
                "volfrac": round(float(rng.uniform(*BEAMS_RANGES["volfrac"])), 2),
                "forcedist": round(float(rng.uniform(*BEAMS_RANGES["forcedist"])), 2),
                "rmin": round(float(rng.uniform(*BEAMS_RANGES["rmin"])), 1),
            }
        else:
            low, high = PHOTONICS_RANGES["blur_radius"]
            drawn = {
                "lambda1": round(float(rng.uniform(*PHOTONICS_RANGES["lambda1"])), 2),
                "lambda2": round(float(rng.uniform(*PHOTONICS_RANGES["lambda2"])), 2),
                "blur_radius": int(rng.integers(int(low), int(high) + 1)),
            }
    return drawn


def problem_config(problem: str, conditions: dict[str, Any], preset: str = "") -> dict[str, Any]:
    if problem == "beams2d":
        return dict(conditions)
    if preset not in PRESET_STEPS:
        raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    return {**conditions, "num_optimization_steps": PRESET_STEPS[preset]}


# -- calls and answers ------------------------------------------------------------------------
OPTIMAL_CALLS: dict[str, tuple[str, ...]] = {
    "FULL": ("optimize_design", "simulate_design", "render_design"),
    "NATURAL": ("ask_human_for_clarification",),
    "W-RAND": ("optimize_design", "simulate_design", "convert_design_to_stl"),
    "W-DERIVED": ("optimize_design", "convert_design_to_stl"),
    "W-DISTRACT": ("optimize_design", "convert_design_to_stl"),
    "W-COND": ("optimize_design", "simulate_design", "convert_design_to_stl"),
    "W-MULTI": (
        "optimize_design",
        "simulate_design",
        "convert_design_to_stl",
        "convert_design_to_stl",
    ),
}


# NATURAL, when the agent asks and then follows the engineer's answer: the prompt asks only for
# the optimisation, so that is the one design call the answer adds.
NATURAL_ANSWERED_CALLS = ("ask_human_for_clarification", "optimize_design")


def engineer_answer(spec: TaskSpec) -> str:
    """What the simulated engineer of a headless cell answers to any question. NATURAL: the
    hidden conditions, the numbers the ground truth was optimised with, so an agent that asks
    and follows the answer can reach the ground truth. Other styles state every number already."""
    if spec.style != "NATURAL":
        return "Everything you need is in my request; use the values given there."
    c = spec.conditions
    config = {"volfrac": c["volfrac"], "forcedist": c["forcedist"], "rmin": c["rmin"]}
    return (
        f"Use a volume fraction of {c['volfrac']}, a force distribution of {c['forcedist']} and a "
        f"filter radius (rmin) of {c['rmin']}: problem_config {json.dumps(config)}."
    )


# Photonics2D's reference prompts all ask for the simulation, so it is an optimal call in each.
PHOTONICS_OPTIMAL_CALLS = {"W-DISTRACT": OPTIMAL_CALLS["W-RAND"]}


def optimal_calls(problem: str, style: str) -> tuple[str, ...]:
    if problem == "photonics2d":
        return PHOTONICS_OPTIMAL_CALLS.get(style, OPTIMAL_CALLS[style])
    return OPTIMAL_CALLS[style]


def styles(problem: str) -> tuple[str, ...]:
    return BEAMS_STYLES if problem == "beams2d" else PHOTONICS_STYLES


def needs_target(style: str) -> bool:
    """Only W-COND's expected export depends on the ground truth (its branch)."""
    return style == "W-COND"


def build(
    problem: str,
    style: str,
    seed: int,
    example: int,
    target: float = float("nan"),
    preset: str = "",
) -> TaskSpec:
    if style not in styles(problem):
        raise ValueError(f"{style} is not a {problem} style; known: {', '.join(styles(problem))}")
    conditions = sample_conditions(problem, seed, example)
    draws = draws_for(problem, style, seed, example, conditions, target)
    config = problem_config(problem, conditions, preset)
    return TaskSpec(
        problem=problem,
        style=style,
        seed=seed,
        example=example,
        conditions=conditions,
        config=config,
        prompt=prompt_text(problem, style, conditions, config, draws),
        optimal_calls=optimal_calls(problem, style),
        draws=draws,
    )
