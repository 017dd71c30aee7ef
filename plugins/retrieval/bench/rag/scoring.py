"""Gated RAG scoring, as EngiAI Appendix A.2 / Table 4 and the spec's section 4, under the rule
every suite follows (workbench.bench.earned): only calls that succeeded are read.

Each parameter is read from the first optimize_design call that succeeded and has it (flat, or
inside problem_config; under any of its aliases). Its accuracy is 1 within tolerance, else 0, and
counts only when a search_documents call succeeded before that optimisation (the gate: no credit
for values reached another way, or looked up after the design was made). The search indicator
is 1 when a successful search came before a successful optimize_design: a refused search is no
search, and a search that informed no design earns nothing.

    one parameter:    0.6 acc + 0.4 searched
    two parameters:   0.4 acc1 + 0.4 acc2 + 0.2 searched
    three parameters: 0.3 each + 0.1 searched
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
    value: float | None  # None: no successful optimize_design call has it, or not a number
    call_index: int | None  # which call (index into the cell's calls) it came from
    key: str = ""  # the alias it was given under, e.g. "problem_config.volume_fraction"
    searched_before: bool = False  # a successful search came before that call


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


def searched_before(calls: list[ToolCall], index: int) -> bool:
    """A search_documents call succeeded before calls[index]."""
    return any(call.ok and call.name == SEARCH_TOOL for call in calls[:index])


def designs(calls: list[ToolCall]) -> list[int]:
    """The indices of the optimize_design calls that succeeded: the only designs made."""
    return [i for i, call in enumerate(calls) if call.ok and call.name == OPTIMIZE_TOOL]


def informed_design(calls: list[ToolCall]) -> int | None:
    """The first successful optimisation a successful search came before, or None."""
    return next((i for i in designs(calls) if searched_before(calls, i)), None)


def read_parameter(calls: list[ToolCall], parameter: str) -> ReadParameter:
    for index in designs(calls):
        found = _find(calls[index].args, parameter)
        if found is not None:
            return ReadParameter(_number(found[1]), index, found[0], searched_before(calls, index))
    return ReadParameter(None, None)


def accurate(value: float | None, target: float, parameter: str) -> float:
    if value is None:
        return 0.0
    return 1.0 if abs(value - target) <= TOLERANCES[parameter] + EPSILON else 0.0


def score(calls: list[ToolCall], targets: dict[str, float]) -> dict[str, float]:
    """The cell's scores: rag_accuracy (the weighted score), search_called (a successful search
    before a successful design), param_accuracy (mean gated accuracy), and per parameter acc_<p>
    (gated) and raw_acc_<p> (ungated, from successful calls still; for analysis)."""
    if len(targets) not in WEIGHTS:
        raise ValueError(f"rag scoring takes 1 to 3 parameters, not {len(targets)}: {targets}")
    each, gate = WEIGHTS[len(targets)]
    called = 1.0 if informed_design(calls) is not None else 0.0
    scores: dict[str, float] = {"search_called": called}
    for parameter, target in targets.items():
        read = read_parameter(calls, parameter)
        raw = accurate(read.value, target, parameter)
        scores[f"raw_acc_{parameter}"] = raw
        scores[f"acc_{parameter}"] = raw if read.searched_before else 0.0
    gated = [scores[f"acc_{parameter}"] for parameter in targets]
    scores["param_accuracy"] = sum(gated) / len(gated)
    scores["rag_accuracy"] = round(each * sum(gated) + gate * called, 10)
    return scores


def contributions(scores: dict[str, float], parameters: list[str]) -> dict[str, float]:
    """What each part adds to rag_accuracy (EngiAI Fig 6 stacks them): "search" the
    indicator's weight, and each parameter its weighted gated accuracy."""
    each, gate = WEIGHTS[len(parameters)]
    parts = {"search": gate * float(scores.get("search_called", 0.0))}
    parts.update({p: each * float(scores.get(f"acc_{p}", 0.0)) for p in parameters})
    return parts


def bound_calls(calls: list[ToolCall], targets: dict[str, float]) -> list[int]:
    """The optimize_design calls the score rests on, each a design the cell must still hold:
    those the scored parameters came from, and the one the search indicator counted."""
    found = {read_parameter(calls, p).call_index for p in targets} | {informed_design(calls)}
    return sorted(index for index in found if index is not None)
