"""Task generation: conditions from our seeded sampler, export parameters in the reference's draw
order, ranges and number formats (spec section 2), so (seed, example) gives the reference's values.

A prompt is a pure function of (problem, style, seed, example): nothing is stored, the suite
builds it when a cell runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

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

THRESHOLD = (0.3, 0.7)
SCALE_XY = (0.5, 5.0)
SCALE_Z = (5.0, 20.0)
COMPLIANCE_T = (100.0, 300.0)  # W-COND, Beams2D (reference)
# W-COND, Photonics2D: the reference draws the limit from [0.1, 0.8] to split its dataset (median
# total_overlap 0.29) about evenly. Our 20-step ground truths have median 0.20 (seeds 0-2 x 5
# examples), where that range sends 2 of 15 to the "high" branch; [0.05, 0.35] sends 7 of 15.
# Only the limit's range differs: the draws after it, and so every export value, are unchanged.
OVERLAP_T = (0.05, 0.35)
MAX_TRIES = 100


@dataclass(frozen=True)
class Export:
    """The four export parameters a W-style validates (rounded as the prompt prints them)."""

    threshold: float
    mirror_y: bool
    scale_xy: float
    scale_z: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "mirror_y": self.mirror_y,
            "scale_xy": self.scale_xy,
            "scale_z": self.scale_z,
        }


@dataclass(frozen=True)
class Draws:
    """Everything random about one task; `expected` are the exports that pass, in order."""

    expected: tuple[Export, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # preview values, branches, T


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
                "blur_radius": int(rng.integers(low, high + 1)),
            }
    return drawn


def problem_config(problem: str, conditions: dict[str, Any]) -> dict[str, Any]:
    if problem == "beams2d":
        return dict(conditions)
    return {**conditions, "num_optimization_steps": PHOTONICS_STEPS}


# -- draws (reference order and formats) -------------------------------------------------------
def _r2(value: float) -> float:
    return round(float(value), 2)


def _r1(value: float) -> float:
    return round(float(value), 1)


def _apart(rng: np.random.Generator, other: float, span: tuple[float, float], gap: float) -> float:
    """Redraw until at least `gap` from `other`; after MAX_TRIES the range end far from it."""
    for _ in range(MAX_TRIES):
        value = float(rng.uniform(*span))
        if abs(value - other) >= gap:
            return value
    low, high = span
    return high if other < (low + high) / 2 else low


def draw_random(unique_seed: int) -> Export:
    rng = np.random.default_rng(unique_seed)
    mirror = bool(rng.choice([True, False]))
    scale_xy, scale_z, threshold = (
        rng.uniform(*SCALE_XY),
        rng.uniform(*SCALE_Z),
        rng.uniform(*THRESHOLD),
    )
    return Export(_r2(threshold), mirror, _r2(scale_xy), _r1(scale_z))


def draw_distract(unique_seed: int) -> Draws:
    real = draw_random(unique_seed)
    rng = np.random.default_rng(unique_seed + 10000)
    preview_threshold = _apart(rng, real.threshold, THRESHOLD, 0.1)
    preview_xy = _apart(rng, real.scale_xy, SCALE_XY, 0.5)
    return Draws(
        (real,),
        {"preview_threshold": _r2(preview_threshold), "preview_scale_xy": _r2(preview_xy)},
    )


def draw_conditional(unique_seed: int, span: tuple[float, float], target: float) -> Draws:
    """`target` is the ground truth's objective: it picks the branch, not the agent's simulation."""
    rng = np.random.default_rng(unique_seed)
    limit = _r1(rng.uniform(*span)) if span == COMPLIANCE_T else _r2(rng.uniform(*span))
    high = float(rng.uniform(*THRESHOLD))
    low = _apart(rng, high, THRESHOLD, 0.1)
    mirror_high = bool(rng.choice([True, False]))
    scale_xy, scale_z = _r2(rng.uniform(*SCALE_XY)), _r1(rng.uniform(*SCALE_Z))
    branches = {
        "high": Export(_r2(high), mirror_high, scale_xy, scale_z),
        "low": Export(_r2(low), not mirror_high, scale_xy, scale_z),
    }
    branch = "high" if target > limit else "low"
    return Draws(
        (branches[branch],),
        {
            "limit": limit,
            "branch": branch,
            "branches": {k: v.as_dict() for k, v in branches.items()},
        },
    )


def draw_multi(unique_seed: int) -> Draws:
    rng = np.random.default_rng(unique_seed)
    mirror_a = bool(rng.choice([True, False]))
    th_a = float(rng.uniform(*THRESHOLD))
    th_b = _apart(rng, th_a, THRESHOLD, 0.1)
    xy_a = float(rng.uniform(*SCALE_XY))
    xy_b = _apart(rng, xy_a, SCALE_XY, 0.2)
    z_a = float(rng.uniform(*SCALE_Z))
    z_b = _apart(rng, z_a, SCALE_Z, 0.2)
    return Draws(
        (
            Export(_r2(th_a), mirror_a, _r2(xy_a), _r1(z_a)),
            Export(_r2(th_b), not mirror_a, _r2(xy_b), _r1(z_b)),
        )
    )


def derived(conditions: dict[str, Any]) -> Export:
    """W-DERIVED's rules: threshold = volfrac, mirror iff volfrac > 0.4, xy = 2 rmin, z = 40 th."""
    volfrac, rmin = float(conditions["volfrac"]), float(conditions["rmin"])
    return Export(_r2(volfrac), volfrac > 0.4, _r2(2 * rmin), _r1(40 * volfrac))


# -- prompt texts -------------------------------------------------------------------------------
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


def _configuration(problem: str, conditions: dict[str, Any]) -> str:
    if problem == "beams2d":
        return (
            "1. Optimization Configuration (problem beams2d)\n"
            f"   - Volume Fraction: {conditions['volfrac']}\n"
            f"   - Force Distribution: {conditions['forcedist']}\n"
            f"   - Filter Radius (rmin): {conditions['rmin']}\n"
            "   - Objective: Minimize compliance\n\n"
        )
    return (
        "1. Optimization Configuration (problem photonics2d)\n"
        f"   - lambda1: {conditions['lambda1']}\n"
        f"   - lambda2: {conditions['lambda2']}\n"
        f"   - blur_radius: {conditions['blur_radius']}\n"
        f"   - num_optimization_steps: {PHOTONICS_STEPS}\n"
        "   - Objective: Maximize total_overlap\n\n"
    )


def _export_lines(export: Export, indent: str = "   ") -> str:
    return (
        f"{indent}- Thresholding: Apply a {export.threshold:.2f} density threshold\n"
        f"{indent}- Mirror: {_mirror_text(export.mirror_y)}\n"
        f"{indent}- XY Scaling: Scale the X and Y dimensions by {export.scale_xy:.2f}\n"
        f"{indent}- Extrusion: Extrude the 2D result by {export.scale_z:.1f} units in the Z-axis\n"
    )


HEAD = "Execute a 2D topology optimization and export the resulting geometry as a 3D-printable STL file.\n\n"  # noqa: E501
# Photonics2D prompts ask for the simulation in every style, as the reference's do.
PHOTONICS_HEAD = "Execute a 2D photonic structure optimization, simulate the result, and export the geometry as a 3D-printable STL file.\n\n"  # noqa: E501
SIMULATION = "2. Simulation\n   - Simulate the optimized design to obtain {name}\n\n"


def _prompt(problem: str, style: str, conditions: dict[str, Any], draws: Draws) -> str:
    config = _configuration(problem, conditions)
    head, export_section = HEAD, "2. Post-processing & Export"
    if problem == "photonics2d":
        head = PHOTONICS_HEAD
        config += SIMULATION.format(name="total_overlap")
        export_section = "3. Post-processing & Export"
    if style == "FULL":
        return (
            "Design a 2D beam structure.\n\nDesign requirements:\n"
            f"- Use a material volume fraction of {conditions['volfrac']}\n"
            f"- Force distribution parameter: {conditions['forcedist']}\n"
            f"- Minimum filter radius (rmin): {conditions['rmin']}\n\n"
            "Optimize the structure to minimize compliance while respecting the volume "
            "constraint, simulate it, and render the result."
        )
    if style == "NATURAL":
        return (
            "Design a 2D beam structure.\n\nDesign requirements:\n"
            f"- The design should be {describe_volfrac(conditions['volfrac'])}\n"
            f"- Apply {describe_force(conditions['forcedist'])}\n"
            "Optimize the structure to minimize compliance while respecting the volume constraint."
        )
    if style == "W-RAND":
        return (
            head
            + config
            + f"{export_section}\n"
            + _export_lines(draws.expected[0])
            + "   - Export: Save the final geometry as an STL file with these exact parameters"
        )
    if style == "W-DERIVED":
        return (
            HEAD + config + "2. Post-processing & Export (derive the values from these rules)\n"
            "   - Threshold: equal to the volume fraction\n"
            "   - Mirror: mirror across the y-axis only if the volume fraction is above 0.4\n"
            "   - XY Scaling: twice the filter radius (rmin)\n"
            "   - Extrusion: 40 times the threshold, in units along the Z-axis\n"
            "   - Export: Save the final geometry as an STL file with the derived parameters"
        )
    if style == "W-DISTRACT":
        real, extra = draws.expected[0], draws.extra
        return (
            head + config + f"{export_section}\n"
            f"   - Preview threshold (on-screen preview only): {extra['preview_threshold']:.2f}\n"
            f"   - Manufacturing threshold: {real.threshold:.2f}\n"
            f"   - Preview display XY scale (screen only): {extra['preview_scale_xy']:.2f}\n"
            f"   - Manufacturing XY scale: {real.scale_xy:.2f}\n"
            f"   - Mirror: {_mirror_text(real.mirror_y)}\n"
            f"   - Extrusion: Extrude the 2D result by {real.scale_z:.1f} units in the Z-axis\n"
            "   - Export: Save the STL with the manufacturing parameters"
        )
    if style == "W-COND":
        extra = draws.extra
        high, low = (Export(**extra["branches"][k]) for k in ("high", "low"))
        name = "compliance" if problem == "beams2d" else "total_overlap"
        limit = f"{extra['limit']:.1f}" if problem == "beams2d" else f"{extra['limit']:.2f}"
        return (
            "Execute a 2D topology optimization, simulate the result, then export the geometry as "
            "a 3D-printable STL file with parameters that depend on the simulation outcome.\n\n"
            + _configuration(problem, conditions)
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
    a, b = draws.expected  # W-MULTI
    return (
        "Execute a 2D topology optimization and export TWO separate STL files.\n\n"
        + config
        + "2. Export A\n"
        + _export_lines(a)
        + "3. Export B\n"
        + _export_lines(b)
        + "   - Export: Save A and B as two separate STL files with these exact parameters"
    )


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


def draws_for(
    problem: str, style: str, seed: int, example: int, conditions: dict[str, Any], target: float
) -> Draws:
    unique_seed = seed + example  # the reference's per-example seed
    if style == "W-RAND":
        return Draws((draw_random(unique_seed),))
    if style == "W-DERIVED":
        return Draws((derived(conditions),))
    if style == "W-DISTRACT":
        return draw_distract(unique_seed)
    if style == "W-COND":
        span = COMPLIANCE_T if problem == "beams2d" else OVERLAP_T
        return draw_conditional(unique_seed, span, target)
    if style == "W-MULTI":
        return draw_multi(unique_seed)
    return Draws()


def needs_target(style: str) -> bool:
    """Only W-COND's expected export depends on the ground truth (its branch)."""
    return style == "W-COND"


def build(
    problem: str, style: str, seed: int, example: int, target: float = float("nan")
) -> TaskSpec:
    if style not in styles(problem):
        raise ValueError(f"{style} is not a {problem} style; known: {', '.join(styles(problem))}")
    conditions = sample_conditions(problem, seed, example)
    draws = draws_for(problem, style, seed, example, conditions, target)
    return TaskSpec(
        problem=problem,
        style=style,
        seed=seed,
        example=example,
        conditions=conditions,
        config=problem_config(problem, conditions),
        prompt=_prompt(problem, style, conditions, draws),
        optimal_calls=optimal_calls(problem, style),
        draws=draws,
    )
