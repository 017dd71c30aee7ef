"""Gated RAG scoring, as EngiAI Appendix A.2 / Table 4 and the spec's section 4.

Each parameter is read from the first optimize_design call that has it (flat, or inside
problem_config; under any of its aliases). Its accuracy is 1 within tolerance, else 0, and counts
only when search_documents was called (the gate: no credit for values reached another way).

    one parameter:    0.6 acc + 0.4 called
    two parameters:   0.4 acc1 + 0.4 acc2 + 0.2 called
    three parameters: 0.3 each + 0.1 called
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from workbench.bench.tool_calls import ToolCall
from workbench_plugins.retrieval.bench.rag.prompts import ALIASES, TOLERANCES

SEARCH_TOOL = "search_documents"
OPTIMIZE_TOOL = "optimize_design"
# per number of scored parameters: (weight of each accuracy, weight of the search indicator)
WEIGHTS = {1: (0.6, 0.4), 2: (0.4, 0.2), 3: (0.3, 0.1)}
EPSILON = 1e-9  # a value exactly at the tolerance counts (0.63 - 0.58 is 0.0500000004 in floats)


@dataclass(frozen=True)
class ReadParameter:
    value: float | None  # None: no optimize_design call has it, or not a number
    call_index: int | None  # which call (index into the cell's calls) it came from
    key: str = ""  # the alias it was given under, e.g. "problem_config.volume_fraction"


def _config_of(args: dict[str, Any]) -> dict[str, Any]:
    """problem_config as a dict: a model may send it as a JSON string."""
    config = args.get("problem_config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError:
            return {}
    return config if isinstance(config, dict) else {}


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _find(args: dict[str, Any], parameter: str) -> tuple[str, Any] | None:
    """problem_config first (what the tool uses), then flat arguments; aliases in spec order."""
    for where, values in (("problem_config.", _config_of(args)), ("", args)):
        for alias in ALIASES[parameter]:
            if alias in values:
                return where + alias, values[alias]
    return None


def read_parameter(calls: list[ToolCall], parameter: str) -> ReadParameter:
    for index, call in enumerate(calls):
        if call.name != OPTIMIZE_TOOL:
            continue
        found = _find(call.args, parameter)
        if found is not None:
            return ReadParameter(_number(found[1]), index, found[0])
    return ReadParameter(None, None)


def accurate(value: float | None, target: float, parameter: str) -> float:
    if value is None:
        return 0.0
    return 1.0 if abs(value - target) <= TOLERANCES[parameter] + EPSILON else 0.0


def searched(calls: list[ToolCall]) -> bool:
    """The gate: search_documents was called (a call the registry refused still counts as
    calling it, as in the reference; with no tool offered there is nothing to call)."""
    return any(call.name == SEARCH_TOOL for call in calls)


def score(calls: list[ToolCall], targets: dict[str, float]) -> dict[str, float]:
    """The cell's scores: rag_accuracy (the weighted score), search_called, param_accuracy (mean
    gated accuracy), and per parameter acc_<p> (gated) and raw_acc_<p> (ungated, for analysis)."""
    if len(targets) not in WEIGHTS:
        raise ValueError(f"rag scoring takes 1 to 3 parameters, not {len(targets)}: {targets}")
    each, gate = WEIGHTS[len(targets)]
    called = 1.0 if searched(calls) else 0.0
    scores: dict[str, float] = {"search_called": called}
    for parameter, target in targets.items():
        raw = accurate(read_parameter(calls, parameter).value, target, parameter)
        scores[f"raw_acc_{parameter}"] = raw
        scores[f"acc_{parameter}"] = raw * called
    gated = [scores[f"acc_{parameter}"] for parameter in targets]
    scores["param_accuracy"] = sum(gated) / len(gated)
    scores["rag_accuracy"] = round(each * sum(gated) + gate * called, 10)
    return scores


def scored_call(calls: list[ToolCall], targets: dict[str, float]) -> int | None:
    """The optimize_design call the score is bound to: the first one a scored parameter came
    from (the design it made is the cell's artifact)."""
    found = [read_parameter(calls, p).call_index for p in targets]
    indices = [index for index in found if index is not None]
    return min(indices) if indices else None
