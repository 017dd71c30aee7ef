"""Scores of one HPC cell, as Appendix A.3 and spec section 5, counting only work that was done
(workbench.bench.earned, issue 27).

    score = w_step * steps_done / 4 + w_cfg * config_ok + w_eval * metrics_verified
    w_cfg = 0.15 if generate_training_command succeeded else 0
    w_eval = 0.15 if evaluate_model (or its CLI alternative) succeeded else 0
    w_step = 1 - w_cfg - w_eval            (a missing step is not penalised twice)
    CO = 0.60 score + 0.20 TC + 0.20 ToolEff

Where this differs from the spec, and why:
- Steps, weights and the configuration check read only calls that succeeded (`succeeded`): a
  refused or failed call did no work.
- The evaluation term is `metrics_verified`, not the spec's regex count: a metric counts when
  the agent's final answer states it and the value equals what an evaluate_model call of this
  cell computed from the job's downloaded outputs (suite.py binds the score to their sha256).
  `metrics_extracted` keeps the spec's count (from the answer only) as a column to compare.
- A metric stated in the answer that no evaluation of the cell produced (`metrics_invented`) is
  a fabricated result: hpc_score, TC and CO are 0. A CLI evaluation (execute_cli_command of an
  EngiOpt script) counts as the step, but its numbers are not tied to the outputs: metrics
  reported after one alone are neither verified nor invented.
- TC is 1 when all four steps succeeded, the configuration check passed and all six metrics
  were reported as the evaluation gave them. ToolEff is min(1, steps done / calls made): the
  workflow suite's min(1, optimal / actual) counting only the optimal steps that were done, so
  calls that all failed earn no efficiency.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

from workbench.bench.earned import succeeded
from workbench.bench.tool_calls import ToolCall
from workbench_plugins.hpc.bench.prompts import HpcTaskSpec

__all__ = ["ToolCall", "score_cell"]
STEP_TOOLS = (
    "generate_training_command",
    "submit_slurm_job",
    "monitor_job_until_complete",
    "evaluate_model",
)
OPTIMAL_CALLS = STEP_TOOLS
TOOL_EVALUATE = "evaluate_model"
CLI_TOOL = "execute_cli_command"  # the reference accepts an EngiOpt evaluate script run by hand
METRICS = ("IOG", "COG", "FOG", "MMD", "DPP", "viol")
BASE_WEIGHTS = {"step": 0.70, "config": 0.15, "eval": 0.15}
CO_WEIGHTS = {"score": 0.60, "task_completion": 0.20, "tool_efficiency": 0.20}
# the scores a fabricated metric zeroes; with the ones resting on the evaluated outputs, the
# scores a broken binding zeroes (suite.py)
FABRICATION_GATED = ("hpc_score", "task_completion", "overall")
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
    """A step is done if its tool succeeded at least once (the spec: "was called"; a call the
    registry refused or the tool failed did nothing)."""
    done_calls = succeeded(calls)
    names = {call.name for call in done_calls}
    done = {tool: tool in names for tool in STEP_TOOLS}
    done["evaluate_model"] = done["evaluate_model"] or any(map(is_cli_evaluation, done_calls))
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
    """Some successful generate_training_command call asked for exactly the task's training."""
    return any(
        config_matches(call_config(call), task)
        for call in succeeded(calls)
        if call.name == "generate_training_command"
    )


# -- metrics ------------------------------------------------------------------------------------
def extract_metrics(texts: Iterable[str]) -> dict[str, list[str]]:
    """Every value stated for each metric, as written, in text order."""
    found: dict[str, list[str]] = {}
    for text in texts:
        for name, pattern in METRIC_PATTERNS.items():
            values = pattern.findall(text)
            if values:
                found.setdefault(name, []).extend(values)
    return found


def metrics_score(found: Mapping[str, list[str]]) -> float:
    """The spec's extraction term: the share of the six metrics named with a number."""
    return min(1.0, len([name for name in METRICS if found.get(name)]) / len(METRICS))


def agrees(written: str, value: float) -> bool:
    """A reported number equals a result value to the precision it was written with."""
    reported = float(written)
    mantissa = written.lower().split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(written.lower().split("e")[1]) if "e" in written.lower() else 0
    tolerance = 0.5 * 10.0 ** (exponent - decimals)
    return abs(reported - value) <= max(tolerance, 1e-3 * abs(value)) + 1e-12


def evaluations(calls: Iterable[ToolCall]) -> list[dict[str, Any]]:
    """The results of the successful evaluate_model calls: the metrics the job produced."""
    return [call.result for call in succeeded(calls) if call.name == TOOL_EVALUATE and call.result]


def produced(name: str, written: str, results: Iterable[Mapping[str, Any]]) -> bool:
    """Some evaluation of the cell computed the value `written` for metric `name`."""
    for result in results:
        value = result.get(RESULT_KEYS[name])
        if isinstance(value, int | float) and math.isfinite(value) and agrees(written, value):
            return True
    return False


def check_reported(
    found: Mapping[str, list[str]], results: list[dict[str, Any]], cli_evaluated: bool
) -> tuple[list[str], list[str]]:
    """(verified, invented): the metrics whose last stated value an evaluation of the cell
    produced, and those stated with a value none produced (after a CLI evaluation alone, a
    stated value can be neither: nothing here holds its numbers)."""
    verified, invented = [], []
    for name in METRICS:
        if not found.get(name):
            continue
        if produced(name, found[name][-1], results):
            verified.append(name)
        elif results or not cli_evaluated:
            invented.append(name)
    return verified, invented


def metrics_verified(found: Mapping[str, list[str]], result: Mapping[str, Any] | None) -> float:
    """The share of the six metrics whose last stated value is the evaluation's own."""
    verified, _ = check_reported(found, [dict(result)] if result else [], False)
    return len(verified) / len(METRICS)


# -- the composite --------------------------------------------------------------------------------
def weights(generate_done: bool, evaluate_done: bool) -> dict[str, float]:
    """A.3's weights with a step's secondary weight moved to the step rate when it was not done."""
    config = BASE_WEIGHTS["config"] if generate_done else 0.0
    evaluation = BASE_WEIGHTS["eval"] if evaluate_done else 0.0
    return {"step": 1.0 - config - evaluation, "config": config, "eval": evaluation}


def hpc_score(step_rate: float, config: bool, evaluation: float, w: Mapping[str, float]) -> float:
    return w["step"] * step_rate + w["config"] * float(config) + w["eval"] * evaluation


def tool_efficiency(steps: int, actual_calls: int) -> float:
    return 0.0 if actual_calls == 0 else min(1.0, steps / actual_calls)


def score_cell(
    calls: list[ToolCall], answer: str, task: HpcTaskSpec
) -> tuple[dict[str, float], dict[str, Any]]:
    """The cell's scores from its calls and its final answer, and the details that explain
    them. The answer is what the agent reported; tool results are never read as its report."""
    done = steps_done(calls)
    rate = sum(done.values()) / len(STEP_TOOLS)
    configured = config_ok(calls, task)
    found = extract_metrics([answer])
    results = evaluations(calls)
    cli = any(map(is_cli_evaluation, succeeded(calls)))
    verified, invented = check_reported(found, results, cli)
    verified_share = len(verified) / len(METRICS)
    w = weights(done["generate_training_command"], done["evaluate_model"])
    score = hpc_score(rate, configured, verified_share, w)
    completed = rate == 1.0 and configured and len(verified) == len(METRICS)
    efficiency = tool_efficiency(sum(done.values()), len(calls))
    overall = (
        CO_WEIGHTS["score"] * score
        + CO_WEIGHTS["task_completion"] * float(completed)
        + CO_WEIGHTS["tool_efficiency"] * efficiency
    )
    scores = {
        "hpc_score": score,
        "step_rate": rate,
        "config_ok": float(configured),
        "metrics_extracted": metrics_score(found),
        "metrics_verified": verified_share,
        "metrics_invented": len(invented) / len(METRICS),
        "task_completion": float(completed),
        "tool_efficiency": efficiency,
        "overall": overall,
        "tool_calls": float(len(calls)),
        **{f"step_{name}": float(value) for name, value in done.items()},
    }
    details: dict[str, Any] = {
        "weights": w,
        "metrics_found": {k: v[-1] for k, v in found.items()},
        "metrics_verified": verified,
    }
    if invented:  # a stated result no work produced: the score is not earned
        for name in FABRICATION_GATED:
            scores[name] = 0.0
        details["invented"] = (
            f"the answer states {', '.join(invented)} with values no evaluate_model call of "
            "this cell produced: hpc_score, task_completion and overall are 0"
        )
    return scores, details


def last_result(calls: Iterable[ToolCall], tool: str) -> dict[str, Any] | None:
    """The result of the last successful call of `tool`."""
    results = [call.result for call in succeeded(calls) if call.name == tool and call.result]
    return results[-1] if results else None
