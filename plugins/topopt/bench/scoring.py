"""Scores of one cell, as Appendix A and the spec's section 3 (with this project's decisions).

Every sub-score is a plain function over numpy arrays or the recorded tool calls, so each can be
tested on hand-made inputs. `score_cell` combines them:

    DQ = 0.31 IoU + 0.19 PA + 0.15 Obj + 0.12 Constr + 0.12 Conn + 0.11 WT
    CO = 0.65 DQ + 0.20 ToolUse + 0.15 TC

Where we are stricter than the reference: the scored design is the last successful
optimize_design's, and everything else is tied to it by design_sha256 (the tools report the hash
of the exact field they used). TC needs the render (FULL) or exports (W-styles) of that design,
and the objective term reads a simulation of that design, else that optimisation's final value.
NATURAL: the headless engineer answers a question with the task's true numbers
(tasks.engineer_answer), so asking and then designing with them is a right path too: TC for the
question asked before any optimisation; DQ 1 when it abstains, else its design scored as usual;
tool use judged against ask + optimise.

Only work that succeeded counts (workbench.bench.earned): every term reads the calls through
`succeeded`, a failed call adds to the count of calls made but never matches an optimal one, and
the STL files the scores rest on are bound to the sha256 the export tool recorded (`stl_bindings`:
a file gone or changed since zeroes the headline). A term with nothing to measure in a task is
not awarded: it is left out of DQ and the other weights are renormalised to sum to 1
(`unmeasured_terms`: the constraint on Photonics2D, which has none; the watertight STL in FULL
and NATURAL, which ask for none).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import ndimage

from workbench.bench import design_metrics
from workbench.bench.earned import Binding, succeeded
from workbench.bench.tool_calls import ToolCall
from workbench_plugins.topopt.bench.draws import Export
from workbench_plugins.topopt.bench.tasks import NATURAL_ANSWERED_CALLS, TaskSpec

DQ_WEIGHTS = {
    "iou": 0.31,
    "pixel_accuracy": 0.19,
    "objective": 0.15,
    "constraint": 0.12,
    "connectivity": 0.12,
    "watertight": 0.11,
}
CO_WEIGHTS = {"design_quality": 0.65, "tool_use": 0.20, "task_completion": 0.15}
TAU = 0.01  # constraint temperature = tolerance
OBJECTIVE_BAND = 0.2  # relative error at which the objective score reaches 0
PARAM_TOLERANCE = 0.05
OBJECTIVE_ALIASES = {"c": ("c", "compliance", "final_c", "final_compliance")}
NO_STL_STYLES = ("FULL", "NATURAL")  # their deliverable is a render or a question, not an STL


def constraint_targets(task: TaskSpec) -> dict[str, float]:
    """The constraints the task's design must meet: Beams2D's volume fraction; Photonics2D has
    none."""
    return {"volfrac": float(task.conditions["volfrac"])} if task.problem == "beams2d" else {}


def unmeasured_terms(task: TaskSpec) -> tuple[str, ...]:
    """The design-quality terms with nothing to measure in this task: they are not recorded,
    and DQ renormalises the weights of the others (a term with nothing to measure is neither
    awarded nor held against the design)."""
    terms = [] if constraint_targets(task) else ["constraint"]
    if task.style in NO_STL_STYLES:
        terms.append("watertight")
    return tuple(terms)


# -- design quality ------------------------------------------------------------------------------
def binarise(design: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    return np.asarray(design, dtype=float) >= 0.5


def iou(design: npt.ArrayLike, truth: npt.ArrayLike) -> float:
    a, b = binarise(design), binarise(truth)
    union = np.logical_or(a, b).sum()
    return float(np.logical_and(a, b).sum() / union) if union else 0.0


def pixel_accuracy(design: npt.ArrayLike, truth: npt.ArrayLike) -> float:
    return float(np.mean(binarise(design) == binarise(truth)))


def mse(design: npt.ArrayLike, truth: npt.ArrayLike) -> float:
    return float(np.mean((np.asarray(design, float) - np.asarray(truth, float)) ** 2))


def objective_score(actual: float | None, target: float) -> float:
    if actual is None or not math.isfinite(actual):
        return 0.0
    error = abs(actual - target) / abs(target) if target else abs(actual - target)
    return max(0.0, 1.0 - error / OBJECTIVE_BAND)


def constraint_score(design: npt.ArrayLike, targets: dict[str, float], tau: float = TAU) -> float:
    """Mean of exp(-|actual - target| / tau) over the constraints. The only constraint of these
    problems is Beams2D's volume fraction; without one there is nothing to score (the paper's
    1 would be a gift: see `unmeasured_terms`)."""
    if not targets:
        raise ValueError("no constraint to measure: leave the term out (unmeasured_terms)")
    actual = {"volfrac": float(np.mean(np.asarray(design)))}
    terms = [math.exp(-abs(actual[name] - value) / tau) for name, value in targets.items()]
    return float(np.mean(terms))


def components(design: npt.ArrayLike) -> int:
    _, count = ndimage.label(binarise(design), structure=np.ones((3, 3), dtype=int))
    return int(count)


def connectivity(design: npt.ArrayLike) -> float:
    """1 if the material is one 8-connected piece."""
    return 1.0 if components(design) == 1 else 0.0


def design_quality(parts: dict[str, float], skip: tuple[str, ...] = ()) -> float:
    """The weighted sum of DQ_WEIGHTS; terms in `skip` are left out and the rest renormalised."""
    if not skip:
        return float(sum(weight * parts.get(name, 0.0) for name, weight in DQ_WEIGHTS.items()))
    kept = {name: weight for name, weight in DQ_WEIGHTS.items() if name not in skip}
    total = sum(kept.values())
    return float(sum(weight * parts.get(name, 0.0) for name, weight in kept.items()) / total)


# -- tool use --------------------------------------------------------------------------------
def tool_use(calls: list[ToolCall], optimal: tuple[str, ...] | list[str]) -> float:
    """Paper: matched calls (multiset intersection of names) / max(optimal, actual count). Only
    a call that succeeded can match; a failed one still counts among the calls made."""
    if not calls and not optimal:
        return 1.0
    made = [call.name for call in succeeded(calls)]
    matched = sum((Counter(made) & Counter(optimal)).values())
    return matched / max(len(optimal), len(calls))


def tool_efficiency_reference(calls: list[ToolCall], optimal: tuple[str, ...] | list[str]) -> float:
    """The reference code's variant: min(1, optimal / calls made), blind to which tools; 0 when
    no call succeeded."""
    return min(1.0, len(optimal) / len(calls)) if succeeded(calls) else 0.0


# -- task completion -------------------------------------------------------------------------------
def _value(call: ToolCall, result_key: str, arg_key: str) -> Any:
    if call.result and result_key in call.result:
        return call.result[result_key]
    return call.args.get(arg_key)


def export_matches(call: ToolCall, expected: Export, tolerance: float = PARAM_TOLERANCE) -> bool:
    """All four must match: floats within the tolerance, the mirror exactly. The values are read
    from the tool's result (what was exported), falling back to the arguments."""
    for name in ("threshold", "scale_xy", "scale_z"):
        value = _value(call, name, name)
        if value is None or abs(float(value) - getattr(expected, name)) >= tolerance:
            return False
    mirrored = _value(call, "mirrored", "mirror_y")
    return mirrored is not None and bool(mirrored) == expected.mirror_y


def optimised_sha(calls: list[ToolCall]) -> str | None:
    """The cell's optimised design: design_sha256 of the last successful optimize_design."""
    for call in reversed(succeeded(calls)):
        if call.name == "optimize_design" and call.result:
            return call.result.get("design_sha256")
    return None


def uses_design(call: ToolCall, design_sha: str | None) -> bool:
    """Whether a render, simulation or export worked on exactly this design."""
    return design_sha is not None and (call.result or {}).get("design_sha256") == design_sha


def asked_before_designing(calls: list[ToolCall]) -> bool:
    """NATURAL: a question counts only before the first optimisation (asking after designing on
    guessed numbers is not asking)."""
    for call in succeeded(calls):
        if call.name == "ask_human_for_clarification":
            return True
        if call.name == "optimize_design":
            return False
    return False


def judged_exports(calls: list[ToolCall], task: TaskSpec) -> tuple[list[ToolCall], list[Export]]:
    """The successful exports task completion judges, and what each must match: W-MULTI's first
    two (A then B), else the last one."""
    exports = [call for call in succeeded(calls) if call.name == "convert_design_to_stl"]
    expected = list(task.draws.expected)
    if len(expected) > 1:
        return exports[: len(expected)], expected
    return exports[-1:], expected[:1]


def task_completion(calls: list[ToolCall], task: TaskSpec) -> float:
    """The deliverable must be the cell's optimised design (by design_sha256): a render or
    export of "initial", of a random design or of some other .npy completes nothing."""
    ok_calls = succeeded(calls)
    if task.style == "NATURAL":
        return float(asked_before_designing(calls))
    optimised = optimised_sha(ok_calls)
    if task.style == "FULL":
        return float(any(c.name == "render_design" and uses_design(c, optimised) for c in ok_calls))
    judged, expected = judged_exports(ok_calls, task)
    return float(
        len(judged) == len(expected)
        and all(
            uses_design(c, optimised) and export_matches(c, e)
            for c, e in zip(judged, expected, strict=True)
        )
    )


# -- extraction --------------------------------------------------------------------------------
def extract_design(calls: list[ToolCall]) -> npt.NDArray[np.float64] | None:
    """The last successful optimize_design's design (inline if asked for, else its artifact)."""
    for call in reversed(succeeded(calls)):
        if call.name == "optimize_design" and call.result:
            if call.result.get("optimized_design") is not None:
                return np.asarray(call.result["optimized_design"], dtype=float)
            path = call.result.get("design_artifact_path")
            if path and Path(path).is_file():
                return np.asarray(np.load(path, allow_pickle=False), dtype=float)
    return None


def extract_objective(calls: list[ToolCall], objective: str) -> float | None:
    """The objective of the scored design (the last optimize_design's): the last simulation of
    exactly that design, else that optimisation's final value (W-DERIVED and W-DISTRACT have no
    simulation among their optimal calls). A simulation of any other design does not count."""
    names = OBJECTIVE_ALIASES.get(objective, (objective, f"final_{objective}"))
    scored = optimised_sha(calls)
    for call in reversed(succeeded(calls)):
        if call.name == "simulate_design" and uses_design(call, scored):
            result = call.result or {}
            for name in names:
                if isinstance(result.get(name), int | float):
                    return float(result[name])
    for call in reversed(succeeded(calls)):
        if call.name == "optimize_design" and call.result:
            value = call.result.get(f"final_{objective}")
            return float(value) if isinstance(value, int | float) else None
    return None


def extract_history(calls: list[ToolCall]) -> list[float]:
    """The objective per iteration of the first optimize_design that reports one."""
    for call in succeeded(calls):
        if call.name == "optimize_design" and call.result:
            info = call.result.get("optimization_info") or {}
            values = info.get("obj_values") if isinstance(info, dict) else None
            if values:
                return [float(v) for v in values]
    return []


def optimality_gaps(history: list[float], target: float) -> dict[str, float]:
    """Spec section 3: gaps = objective per iteration - ground-truth objective; IOG the first,
    COG their sum, FOG the last. Empty without a history or a finite target."""
    if not history or not math.isfinite(target):
        return {}
    gaps = np.asarray(history, dtype=float) - target
    return {"iog": float(gaps[0]), "cog": float(gaps.sum()), "fog": float(gaps[-1])}


def volume_violation(design: npt.ArrayLike, volfrac: float, tolerance: float = TAU) -> float:
    """1 if the design's mean density misses the volume fraction by the tolerance or more."""
    return design_metrics.volume_violation(design, volfrac, tolerance)


def mesh_is_watertight(path: str | Path) -> bool:
    """trimesh's check, retried after merging duplicate vertices (as the reference does)."""
    import trimesh

    mesh = trimesh.load_mesh(str(path), file_type="stl")
    if mesh.is_watertight:
        return True
    mesh.merge_vertices()
    return bool(mesh.is_watertight)


def scored_export(calls: list[ToolCall]) -> ToolCall | None:
    """The last successful export of the scored design (the last optimisation's), or None."""
    ok_calls = succeeded(calls)
    design = optimised_sha(ok_calls)
    for call in reversed(ok_calls):
        if call.name == "convert_design_to_stl" and uses_design(call, design):
            return call
    return None


def stl_binding(export: ToolCall) -> Binding:
    """An export's STL as the tool wrote it (the stl_sha256 it recorded) against the file now."""
    result = export.result or {}
    path = Path(str(result.get("stl_path") or ""))
    design = str(result.get("design_sha256") or "")[:12]
    expected = str(result.get("stl_sha256") or "")
    return Binding.to_file(f"STL of design {design} ({path.name})", path, expected)


def watertight(calls: list[ToolCall]) -> float:
    """Whether the scored design's export is one watertight solid, checked on the file itself:
    the tool's flag is not trusted, and a file gone or changed since the export scores 0."""
    export = scored_export(calls)
    if export is None or not stl_binding(export).holds:
        return 0.0
    return float(mesh_is_watertight((export.result or {})["stl_path"]))


def stl_bindings(calls: list[ToolCall], task: TaskSpec) -> list[Binding]:
    """The STL files the scores rest on, each bound to the sha256 its export recorded: the
    exports of the scored design that task completion judged, and the one `watertight` read."""
    if task.style in NO_STL_STYLES:
        return []
    design = optimised_sha(succeeded(calls))
    exports = [call for call in judged_exports(calls, task)[0] if uses_design(call, design)]
    last = scored_export(calls)
    if last is not None and all(last is not call for call in exports):
        exports.append(last)
    return [stl_binding(export) for export in exports]


def optimal_calls_taken(calls: list[ToolCall], task: TaskSpec) -> tuple[str, ...]:
    """NATURAL has two right paths: ask and stop (the reference), or ask, get the engineer's
    numbers (the headless engineer gives them) and optimise with them. Following the answer is
    judged against the second path, so it costs no tool-use points."""
    if task.style == "NATURAL" and asked_before_designing(calls) and optimised_sha(calls):
        return NATURAL_ANSWERED_CALLS
    return task.optimal_calls


# -- the cell ----------------------------------------------------------------------------------
def design_parts(
    design: npt.NDArray[np.float64] | None, truth: npt.NDArray[np.float64], task: TaskSpec
) -> dict[str, float]:
    """The terms read off the design itself; a missing design or one of another shape scores 0
    on each."""
    targets = constraint_targets(task)
    if design is None or design.shape != truth.shape:
        return dict.fromkeys(("iou", "pixel_accuracy", "constraint", "connectivity"), 0.0)
    return {
        "iou": iou(design, truth),
        "pixel_accuracy": pixel_accuracy(design, truth),
        "mse": mse(design, truth),
        "constraint": constraint_score(design, targets) if targets else 0.0,
        "connectivity": connectivity(design),
    }


def score_cell(
    calls: list[ToolCall],
    task: TaskSpec,
    truth: npt.NDArray[np.float64],
    target_objective: float,
) -> tuple[dict[str, float], npt.NDArray[np.float64] | None]:
    """All sub-scores of one cell (numbers only) and the design that was scored. The terms
    with nothing to measure (`unmeasured_terms`) are not recorded and DQ renormalises without
    them."""
    unmeasured = unmeasured_terms(task)
    design = extract_design(calls)
    scores: dict[str, float] = {
        **design_parts(design, truth, task),
        "objective": objective_score(extract_objective(calls, task.objective), target_objective),
        "watertight": 0.0 if "watertight" in unmeasured else watertight(calls),
        "tool_use": tool_use(calls, optimal_calls_taken(calls, task)),
        # the reference's variant keeps the task's own list, to stay comparable with its numbers
        "tool_efficiency_ref": tool_efficiency_reference(calls, task.optimal_calls),
        "task_completion": task_completion(calls, task),
        "tool_calls": float(len(calls)),
    }
    for name in unmeasured:
        del scores[name]
    scores.update(optimality_gaps(extract_history(calls), target_objective))
    if design is not None and design.shape == truth.shape and task.problem == "beams2d":
        scores["volume_violation"] = volume_violation(design, float(task.conditions["volfrac"]))
    scores["design_found"] = float(design is not None)
    scores["abstained"] = float(
        task.style == "NATURAL" and design is None and scores["task_completion"] == 1.0
    )
    # NATURAL: asking and not designing is the right answer, so design quality is full. An agent
    # that asks and then designs from the engineer's answer is scored on that design (no STL:
    # the request asks for none), so following the answer never scores below abstaining for a
    # perfect design.
    scores["design_quality"] = 1.0 if scores["abstained"] else design_quality(scores, unmeasured)
    scores["combined"] = float(sum(w * scores[name] for name, w in CO_WEIGHTS.items()))
    return scores, design
