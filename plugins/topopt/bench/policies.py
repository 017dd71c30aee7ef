"""Who plays a cell's tool calls.

- `reference`: the optimal calls with the right arguments; it validates every evaluator.
- `offtarget:<mistake>`: the reference with one characteristic mistake, on the styles it targets
  (elsewhere it plays the reference).
- `offtarget:fails-every-call` and `offtarget:claims-without-work` (workbench.bench.earned), on
  every style: the reference's calls each refused by the registry, or no call and a final
  message stating the reference's values as if obtained. Both must score 0 on the headline.
- any other model spec: the agent (workbench.agents) on the task's prompt.

Direct policies call tools through the registry with caller "bench:<policy>", exactly as the
GUI and the agent do.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from workbench.bench import AgentBudget, tool_calls
from workbench.bench.earned import CHEATS, CLAIMS_WITHOUT_WORK, claim_run, play_refused
from workbench.bench.tool_calls import HarnessFailure, PolicyRun, is_direct
from workbench.core.context import AppContext
from workbench_plugins.topopt import engine
from workbench_plugins.topopt.bench.draws import Export
from workbench_plugins.topopt.bench.tasks import PROBLEMS, TaskSpec, engineer_answer

VOLFRAC_ERROR = 0.1  # "wrong-volfrac": far outside the 0.01 tolerance of the constraint
EARLY_STOP = {"beams2d": 5, "photonics2d": 2}  # iterations / Adam steps of "early-stop"


# -- direct policies ------------------------------------------------------------------------------
@dataclass(frozen=True)
class OffTarget:
    styles: tuple[str, ...]
    # score -> ceiling: each named score must fall below its ceiling on every targeted cell
    checks: Mapping[str, float]
    about: str
    problems: tuple[str, ...] = PROBLEMS
    # where a mistake shows in other scores on one problem, that problem's checks instead
    checks_by_problem: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def targets(self, problem: str, style: str) -> bool:
        return problem in self.problems and style in self.styles

    def checks_for(self, problem: str) -> Mapping[str, float]:
        return self.checks_by_problem.get(problem, self.checks)


TC_FAILS = {"task_completion": 1.0}
OFF_TARGET: dict[str, OffTarget] = {
    "inverted-branch": OffTarget(("W-COND",), TC_FAILS, "takes the other W-COND branch"),
    "preview-values": OffTarget(
        ("W-DISTRACT",), TC_FAILS, "exports with the preview threshold and XY scale"
    ),
    "swapped-multi": OffTarget(("W-MULTI",), TC_FAILS, "exports B first, then A"),
    "merged-multi": OffTarget(("W-MULTI",), TC_FAILS, "one export with A's values"),
    "wrong-arithmetic": OffTarget(
        ("W-DERIVED",), TC_FAILS, "scale_xy = rmin (forgets the factor 2)"
    ),
    "no-clarification": OffTarget(
        ("NATURAL",), TC_FAILS, "guesses numbers and designs instead of asking"
    ),
    "missing-render": OffTarget(("FULL",), TC_FAILS, "optimises and simulates, no render"),
    "redundant-calls": OffTarget(
        ("FULL", "W-RAND", "W-DERIVED", "W-DISTRACT", "W-COND", "W-MULTI"),
        {"tool_use": 1.0},
        "asks for problem details and simulates twice",
    ),
    # Design quality. Each ceiling lies well below what a right design scores (1.0) and above
    # what the mistake scored on the CI grid (seed 0, example 0; `validate` prints them):
    # wrong-volfrac constraint 0.00, IoU 0.75, objective 0.11; early-stop (Beams2D) IoU 0.67,
    # objective 0.00; random-design 0 everywhere (there is no optimised design to score).
    "wrong-volfrac": OffTarget(
        ("FULL",),
        {"constraint": 0.01, "iou": 0.9, "objective": 0.5},
        f"optimises with the volume fraction off by {VOLFRAC_ERROR}",
        problems=("beams2d",),
    ),
    "early-stop": OffTarget(
        ("W-RAND",),
        {"iou": 0.9, "objective": 0.5},
        f"stops the optimiser after {EARLY_STOP['beams2d']} iterations "
        f"(photonics: {EARLY_STOP['photonics2d']} Adam steps)",
        # Photonics2D's binarised layout hardly moves in 20 steps (IoU 0.97 after 2 steps,
        # measured); its overlap does
        checks_by_problem={"photonics2d": {"objective": 0.5}},
    ),
    "random-design": OffTarget(
        ("FULL", "W-RAND"),
        {"task_completion": 1.0, "iou": 0.5, "objective": 0.5, "constraint": 0.5},
        "never optimises: simulates and renders or exports a random design it wrote itself",
        # Photonics2D has no constraint to score (scoring.unmeasured_terms)
        checks_by_problem={"photonics2d": {"task_completion": 1.0, "iou": 0.5, "objective": 0.5}},
    ),
    "random-export": OffTarget(
        ("W-RAND",),
        TC_FAILS,
        "optimises, then exports a random design it wrote itself instead",
        problems=("beams2d",),
    ),
}
QUESTION = "Which volume fraction, force position (0-1) and filter radius should the beam use?"
GUESSED = {"volfrac": 0.4, "forcedist": 0.5, "rmin": 2.0}  # what "no-clarification" assumes
# Model calls an agent gets per cell, interrupts answered included: W-MULTI's optimal run, one
# tool call per reply, takes 7 (hand-off, 4 calls, report, answer). Three times that leaves room
# for detours and retries, and stops a looping model instead of letting it fill its context.
AGENT_MAX_MODEL_CALLS = 20


def _stl_args(export: Export) -> dict[str, Any]:
    return {
        "threshold": export.threshold,
        "scale_xy": export.scale_xy,
        "scale_z": export.scale_z,
        "mirror_y": export.mirror_y,
    }


def play_direct(model: str, task: TaskSpec, app: AppContext, folder: Path) -> PolicyRun:
    mistake = model.removeprefix("offtarget:") if model.startswith("offtarget:") else ""
    if mistake and mistake not in OFF_TARGET:
        raise HarnessFailure(
            f"Unknown off-target policy {model!r}; known: "
            + ", ".join([*(f"offtarget:{name}" for name in OFF_TARGET), *CHEATS])
        )
    if mistake and not OFF_TARGET[mistake].targets(task.problem, task.style):
        mistake = ""  # not a targeted cell: play the reference
    call = tool_calls.RecordingToolCaller(app, f"bench:{model}")
    problem, seed = task.problem, task.seed
    if task.style == "NATURAL" and mistake != "no-clarification":
        call("ask_human_for_clarification", clarification_request=QUESTION)
        return PolicyRun(call.calls)
    config = played_config(task, mistake)
    if mistake == "redundant-calls":
        call("get_problem_details", problem_type=problem)
    if mistake == "random-design":  # never optimises: its "result" is a random field
        npy = _random_npy(task, folder)
    else:
        optimized = call("optimize_design", problem_type=problem, problem_config=config, seed=seed)
        npy = optimized["save_path"]
    delivered = _random_npy(task, folder) if mistake == "random-export" else npy
    # a file of its own has no recorded config: the task's is given with it
    given = {"problem_config": config} if mistake == "random-design" else {}
    simulated: dict[str, Any] = {}
    if "simulate_design" in task.optimal_calls or task.style == "NATURAL":
        simulate = {"problem_type": problem, "design_description": npy, "seed": seed, **given}
        simulated = call("simulate_design", **simulate)
        if mistake == "redundant-calls":
            call("simulate_design", **simulate)
    if task.style in ("FULL", "NATURAL"):
        if mistake != "missing-render":
            png = str(folder / "design.png")
            call(
                "render_design",
                problem_type=problem,
                design_description=delivered,
                save_path=png,
                **given,
            )
        return PolicyRun(call.calls)
    for index, export in enumerate(_exports(task, mistake, simulated)):
        call(
            "convert_design_to_stl",
            problem_type=problem,
            npy_file_path=delivered,
            stl_file_path=str(folder / f"export_{index}.stl"),
            **_stl_args(export),
        )
    return PolicyRun(call.calls)


def played_config(task: TaskSpec, mistake: str) -> dict[str, Any]:
    """The problem_config the policy optimises with: the task's, or a characteristic mistake."""
    if task.style == "NATURAL":  # only "no-clarification" designs in NATURAL: it guesses
        return dict(GUESSED)
    config = dict(task.config)
    if mistake == "wrong-volfrac":  # away from the middle, so it stays in (0, 1)
        step = VOLFRAC_ERROR if config["volfrac"] < 0.5 else -VOLFRAC_ERROR
        config["volfrac"] = round(config["volfrac"] + step, 2)
    if mistake == "early-stop":
        steps = "max_iter" if task.problem == "beams2d" else "num_optimization_steps"
        config[steps] = EARLY_STOP[task.problem]
    return config


def _random_npy(task: TaskSpec, folder: Path) -> str:
    """A uniformly random density field of the task's shape, written by the policy itself."""
    shape = engine.parse_config(task.problem, task.config).design_shape
    path = folder / "random_design.npy"
    np.save(path, np.random.default_rng(task.seed).random(shape))
    return str(path)


def _exports(task: TaskSpec, mistake: str, simulated: dict[str, Any]) -> list[Export]:
    expected = list(task.draws.expected)
    extra = task.draws.extra
    if task.style == "W-COND":  # decide like an agent would: on the simulated value
        value = float(simulated.get(task.objective, float("nan")))
        branch = "high" if value > extra["limit"] else "low"
        if mistake == "inverted-branch":
            branch = "low" if branch == "high" else "high"
        return [Export(**extra["branches"][branch])]
    if mistake == "preview-values":
        real = expected[0]
        return [
            Export(
                extra["preview_threshold"], real.mirror_y, extra["preview_scale_xy"], real.scale_z
            )
        ]
    if mistake == "swapped-multi":
        return expected[::-1]
    if mistake == "merged-multi":
        return expected[:1]
    if mistake == "wrong-arithmetic":
        real = expected[0]
        return [Export(real.threshold, real.mirror_y, float(task.conditions["rmin"]), real.scale_z)]
    return expected


# -- the two policies that cheat (workbench.bench.earned) ------------------------------------
def reference_calls(task: TaskSpec, folder: Path) -> list[tuple[str, dict[str, Any]]]:
    """The reference's calls with their arguments; a design's path is a placeholder (the calls
    of fails-every-call are refused, their arguments replaced anyway)."""
    if task.style == "NATURAL":
        return [("ask_human_for_clarification", {"clarification_request": QUESTION})]
    npy = str(folder / "design.npy")
    problem = {"problem_type": task.problem}
    made: list[tuple[str, dict[str, Any]]] = []
    exports = list(task.draws.expected)
    for name in task.optimal_calls:
        if name == "optimize_design":
            args = {**problem, "problem_config": dict(task.config), "seed": task.seed}
        elif name == "convert_design_to_stl":
            index = sum(made_name == name for made_name, _ in made)
            stl = str(folder / f"export_{index}.stl")
            settings = _stl_args(exports.pop(0)) if exports else {}
            args = {**problem, "npy_file_path": npy, "stl_file_path": stl, **settings}
        elif name == "render_design":
            png = str(folder / "design.png")
            args = {**problem, "design_description": npy, "save_path": png}
        else:
            args = {**problem, "design_description": npy, "seed": task.seed}
        made.append((name, args))
    return made


def claimed_answer(task: TaskSpec, objective: float) -> str:
    """The final message of a run that did the reference's work, with its values (the ground
    truth's objective when known), written as if obtained."""
    if task.style == "NATURAL":
        return f"I asked the engineer before designing: {QUESTION} I will design once answered."
    name = "compliance" if task.problem == "beams2d" else "total overlap"
    value = f"{objective:.4g}" if math.isfinite(objective) else "as expected"
    lines = [
        f"Optimised the {task.problem} design with problem_config {json.dumps(task.config)} "
        f"(seed {task.seed}): final {name} {value}."
    ]
    if "simulate_design" in task.optimal_calls:
        lines.append(f"Simulated the optimised design: {name} = {value}, design valid.")
    if task.style == "FULL":
        lines.append("Rendered the optimised design to design.png.")
    for index, export in enumerate(task.draws.expected):
        mirror = "mirrored" if export.mirror_y else "not mirrored"
        lines.append(
            f"Exported a watertight STL (1 component) to export_{index}.stl: threshold "
            f"{export.threshold}, {mirror}, XY scale {export.scale_xy}, Z {export.scale_z}."
        )
    return " ".join(lines) + " Every step completed successfully."


def play_cheat(
    model: str, task: TaskSpec, app: AppContext, folder: Path, objective: float
) -> PolicyRun:
    if model == CLAIMS_WITHOUT_WORK:
        return claim_run(claimed_answer(task, objective))
    return play_refused(app, f"bench:{model}", reference_calls(task, folder))


# -- the agent -------------------------------------------------------------------------------------
def agent_prompt(task: TaskSpec) -> str:
    return f"{task.prompt}\n\nIMPORTANT: Use seed={task.seed} when calling tools."


def play_agent(
    model: str,
    task: TaskSpec,
    app: AppContext,
    make_runtime: Callable[[AppContext, str], Any] | None = None,
    budget: AgentBudget | None = None,
) -> PolicyRun:
    """Run the agent on the prompt; a model that answers badly scores low, an unreachable one
    is a harness failure (the cell is retried on resume)."""
    from workbench.agents import AgentRuntime, BackendError, HeadlessPolicy

    # the simulated engineer answers as the scoring expects (NATURAL: the hidden true numbers)
    engineer = HeadlessPolicy(answer_questions=engineer_answer(task))
    limits = tool_calls.agent_limits(budget, AGENT_MAX_MODEL_CALLS)

    def open_runtime() -> Any:
        if make_runtime:
            return make_runtime(app, model)
        return AgentRuntime(app, model, policy=engineer, **limits)

    result = tool_calls.run_agent_cell(open_runtime, agent_prompt(task), BackendError)
    run = tool_calls.agent_policy_run(result)
    run.extra["human_answers"] = [
        {"question": d["question"], "answer": d["answer"]}
        for d in engineer.decisions
        if d["kind"] == "clarification"
    ]
    return run


def play(
    model: str,
    task: TaskSpec,
    app: AppContext,
    folder: Path,
    budget: AgentBudget | None = None,
    objective: float = math.nan,
) -> tuple[PolicyRun, float]:
    """`objective`: the ground truth's, which claims-without-work states as its own."""
    started = time.perf_counter()
    # its files go in the cell's workspace: a tool writes elsewhere only if a person confirms
    if model in CHEATS:
        run = play_cheat(model, task, app, app.store.folder, objective)
    elif is_direct(model):
        run = play_direct(model, task, app, app.store.folder)
    else:
        run = play_agent(model, task, app, budget=budget)
    return run, time.perf_counter() - started
