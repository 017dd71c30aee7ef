"""Scores of one HPC cell, as Appendix A.3 and spec section 5 (with this project's decisions).

    score = w_step * steps_done / 4 + w_cfg * config_ok + w_eval * min(1, metrics_found / 6)
    w_cfg = 0.15 if generate_training_command was called else 0
    w_eval = 0.15 if evaluate_model (or its CLI alternative) was called else 0
    w_step = 1 - w_cfg - w_eval            (a missing step is not penalised twice)
    CO = 0.60 score + 0.20 TC + 0.20 ToolEff

Decisions where the spec says nothing: TC is 1 when all four steps were done and the
configuration check passed (the pipeline ran and trained what was asked); ToolEff is the
workflow suite's min(1, optimal / actual calls). Beyond the spec, `metrics_verified` is the
fraction of reported metric values that equal the evaluate_model result they came from, so a
cell's score is bound to the outputs it evaluated (suite.py records their sha256).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.bench.tool_calls import ToolCall
from workbench_plugins.hpc.bench.prompts import HpcTaskSpec

STEP_TOOLS = (
    "generate_training_command",
    "submit_slurm_job",
    "monitor_job_until_complete",
    "evaluate_model",
)
OPTIMAL_CALLS = STEP_TOOLS
CLI_TOOL = "execute_cli_command"  # the reference accepts an EngiOpt evaluate script run by hand
METRICS = ("IOG", "COG", "FOG", "MMD", "DPP", "viol")
BASE_WEIGHTS = {"step": 0.70, "config": 0.15, "eval": 0.15}
CO_WEIGHTS = {"score": 0.60, "task_completion": 0.20, "tool_efficiency": 0.20}
DEFAULT_ALGORITHM = "cgan_cnn_2d"
DEFAULT_PROBLEM = "beams2d"
# a metric's name (quoted or bold or not), then ':' or '=', then a number
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NAMES = {
    "IOG": r"IOG",
    "COG": r"COG",
    "FOG": r"FOG",
    "MMD": r"MMD",
    "DPP": r"DPP",
    "viol": r"viol(?:ation)?(?:[ _-]?rate)?",
}
METRIC_PATTERNS = {
    name: re.compile(
        rf"(?<![A-Za-z0-9_])[*`'\"]*(?:{pattern})[*`'\"]*\s*[:=]\s*[*`'\"]*({_NUMBER})",
        re.IGNORECASE,
    )
    for name, pattern in _NAMES.items()
}
# the keys of evaluate_model's result each metric is compared with
RESULT_KEYS = {"IOG": "iog", "COG": "cog", "FOG": "fog", "MMD": "mmd", "DPP": "dpp", "viol": "viol"}


# -- steps ------------------------------------------------------------------------------------
def is_cli_evaluation(call: ToolCall) -> bool:
    """execute_cli_command running an EngiOpt evaluate script counts as the evaluate step."""
    if call.name != CLI_TOOL:
        return False
    text = " ".join(str(value) for value in call.args.values())
    return "engiopt." in text and ".evaluate_" in text


def steps_done(calls: Iterable[ToolCall]) -> dict[str, bool]:
    """A step is done if its tool was called at least once (as the reference counts it)."""
    called = list(calls)
    names = {call.name for call in called}
    done = {tool: tool in names for tool in STEP_TOOLS}
    done["evaluate_model"] = done["evaluate_model"] or any(map(is_cli_evaluation, called))
    return done


# -- configuration -------------------------------------------------------------------------------
def as_int(value: object) -> int | None:
    """The reference's int coercion: 3, "3", 3.0 and "3.0" are 3; anything else is None."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    if not math.isfinite(number) or number != int(number):
        return None
    return int(number)


def call_config(call: ToolCall) -> Mapping[str, Any]:
    """The arguments that carry the configuration: `args`, or `args.cfg` when it is given."""
    nested = call.args.get("cfg")
    return nested if isinstance(nested, Mapping) else call.args


def config_matches(config: Mapping[str, Any], task: HpcTaskSpec) -> bool:
    algorithm = str(config.get("algorithm") or DEFAULT_ALGORITHM)
    problem = str(config.get("problem_id") or DEFAULT_PROBLEM)
    return (
        as_int(config.get("seed")) == task.seed
        and as_int(config.get("epochs")) == task.epochs
        and algorithm == task.algorithm
        and problem == task.problem_id
    )


def config_ok(calls: Iterable[ToolCall], task: HpcTaskSpec) -> bool:
    """Some generate_training_command call asked for exactly the task's training."""
    return any(
        config_matches(call_config(call), task)
        for call in calls
        if call.name == "generate_training_command"
    )


# -- metrics ------------------------------------------------------------------------------------
def extract_metrics(texts: Iterable[str]) -> dict[str, list[str]]:
    """Every value reported for each metric, as written, in message order."""
    found: dict[str, list[str]] = {}
    for text in texts:
        for name, pattern in METRIC_PATTERNS.items():
            values = pattern.findall(text)
            if values:
                found.setdefault(name, []).extend(values)
    return found


def metrics_score(found: Mapping[str, list[str]]) -> float:
    return min(1.0, len([name for name in METRICS if found.get(name)]) / len(METRICS))


def agrees(written: str, value: float) -> bool:
    """A reported number equals a result value to the precision it was written with."""
    reported = float(written)
    mantissa = written.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(written.lower().split("e")[1]) if "e" in written.lower() else 0
    tolerance = 0.5 * 10.0 ** (exponent - decimals)
    return abs(reported - value) <= max(tolerance, 1e-3 * abs(value)) + 1e-12


def metrics_verified(found: Mapping[str, list[str]], result: Mapping[str, Any] | None) -> float:
    """The fraction of the six metrics whose last reported value is the evaluation's own."""
    if not result:
        return 0.0
    hits = 0
    for name in METRICS:
        value = result.get(RESULT_KEYS[name])
        if found.get(name) and isinstance(value, int | float) and math.isfinite(value):
            hits += agrees(found[name][-1], float(value))
    return hits / len(METRICS)


# -- the composite --------------------------------------------------------------------------------
def weights(generate_called: bool, evaluate_called: bool) -> dict[str, float]:
    """A.3's weights with an uncalled step's secondary weight moved to the step rate."""
    config = BASE_WEIGHTS["config"] if generate_called else 0.0
    evaluation = BASE_WEIGHTS["eval"] if evaluate_called else 0.0
    return {"step": 1.0 - config - evaluation, "config": config, "eval": evaluation}


def hpc_score(step_rate: float, config: bool, evaluation: float, w: Mapping[str, float]) -> float:
    return w["step"] * step_rate + w["config"] * float(config) + w["eval"] * evaluation


def tool_efficiency(actual_calls: int, optimal_calls: int = len(OPTIMAL_CALLS)) -> float:
    return 0.0 if actual_calls == 0 else min(1.0, optimal_calls / actual_calls)


def score_cell(
    calls: list[ToolCall], texts: list[str], task: HpcTaskSpec
) -> tuple[dict[str, float], dict[str, Any]]:
    """The cell's scores, and the details that explain them."""
    done = steps_done(calls)
    rate = sum(done.values()) / len(STEP_TOOLS)
    configured = config_ok(calls, task)
    found = extract_metrics(texts)
    evaluation = metrics_score(found)
    w = weights(done["generate_training_command"], done["evaluate_model"])
    score = hpc_score(rate, configured, evaluation, w)
    completed = 1.0 if rate == 1.0 and configured else 0.0
    efficiency = tool_efficiency(len(calls))
    overall = (
        CO_WEIGHTS["score"] * score
        + CO_WEIGHTS["task_completion"] * completed
        + CO_WEIGHTS["tool_efficiency"] * efficiency
    )
    evaluated = last_result(calls, "evaluate_model")
    scores = {
        "hpc_score": score,
        "step_rate": rate,
        "config_ok": float(configured),
        "metrics_extracted": evaluation,
        "metrics_verified": metrics_verified(found, evaluated),
        "task_completion": completed,
        "tool_efficiency": efficiency,
        "overall": overall,
        **{f"step_{name}": float(value) for name, value in done.items()},
    }
    details = {"weights": w, "metrics_found": {k: v[-1] for k, v in found.items()}}
    return scores, details


def last_result(calls: Iterable[ToolCall], tool: str) -> dict[str, Any] | None:
    """The result of the last successful call of `tool`."""
    results = [call.result for call in calls if call.name == tool and call.ok and call.result]
    return results[-1] if results else None
