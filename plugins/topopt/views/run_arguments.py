"""What an optimisation job was started with, read from the store for the density form (no Qt).

A job's events carry only its id and title ("optimize <problem>"). Every tool call, from the
agent, the chat's /tool or the view's own Run button, goes through the registry, which records
the call with its arguments before the tool runs; the job is started from inside that call. So
when a job's start reaches the GUI, the newest optimize_design call for the job's problem that
began before the job and is still running holds the job's arguments. (Two optimisations of one
problem started within the same instant cannot be told apart this way; the events carry no
call id.)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from workbench.core.store import Store
from workbench_plugins.topopt.problems import EngineError, parse_config

OPTIMIZE_TOOL = "optimize_design"
DEFAULT_PROBLEM = "beams2d"  # OptimizeArgs' default, for a call that named no problem
RECENT_CALLS = 20  # only the newest running calls are looked at


@dataclass(frozen=True)
class RunArguments:
    """A run's problem, its full config (defaults filled in, as the job runs it) and seed."""

    problem_type: str
    config: dict[str, Any] = field(default_factory=dict)
    seed: int = 0


def effective_config(problem_type: str, config: dict[str, Any] | None) -> dict[str, Any]:
    """The config the optimiser really uses: the given values over the problem's defaults."""
    try:
        return parse_config(problem_type, config).model_dump()
    except (EngineError, KeyError):
        return dict(config or {})  # not ours to judge here; show what was given


def from_call_arguments(arguments: Any) -> RunArguments | None:
    """RunArguments of one optimize_design call's arguments, None when they are not usable."""
    if not isinstance(arguments, dict):
        return None
    problem_type = str(arguments.get("problem_type") or DEFAULT_PROBLEM).strip().lower()
    config = arguments.get("problem_config")
    if config is not None and not isinstance(config, dict):
        return None
    try:
        seed = int(arguments.get("seed") or 0)
    except (TypeError, ValueError):
        seed = 0
    return RunArguments(problem_type, effective_config(problem_type, config), seed)


def running_optimize_arguments(
    store: Store, problem_type: str = "", started_by: float | None = None
) -> RunArguments | None:
    """The arguments of the optimize_design call a job (of `problem_type`) belongs to.

    That is the newest call started by `started_by` (the job's first event: its call began
    before it) that is still running; when the job was so quick that its call has already
    finished, the newest such call at all.
    """
    rows = store.query(
        "SELECT arguments, ok FROM tool_calls WHERE tool = ? AND started <= ? "
        "ORDER BY id DESC LIMIT ?",
        (OPTIMIZE_TOOL, time.time() if started_by is None else started_by, RECENT_CALLS),
    )
    matching: list[tuple[RunArguments, bool]] = []
    for row in rows:
        try:
            found = from_call_arguments(json.loads(row["arguments"]))
        except json.JSONDecodeError:
            continue
        if found is not None and (not problem_type or found.problem_type == problem_type):
            matching.append((found, row["ok"] is None))
    running = [found for found, is_running in matching if is_running]
    if running:
        return running[0]
    return matching[0][0] if matching else None
