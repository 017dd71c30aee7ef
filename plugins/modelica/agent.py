"""The harness loop that drives a policy through a Modelica task run, and what it shows each turn.

Each turn the policy sees the brief, the ledger and the current candidate (`turn_context`), not
the whole history: that is where Pufibara's token savings come from. A policy is anything that
maps that context (plus the last tool result) to the next tool call, or to None to stop; a
language model behind the agents runtime is one, the tests use scripted fakes. The specialist's
prompt and tool list are in `specialist`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from workbench_plugins.modelica.harness import Outcome, Run
from workbench_plugins.modelica.run_status import status_of
from workbench_plugins.modelica.specialist import TOOL_NAMES


def turn_context(run: Run, last_result: dict[str, Any] | None = None) -> str:
    """What the policy sees each turn: brief, ledger status, current candidate, last result."""
    status = status_of(run)
    candidate = run.candidate
    if candidate is None:
        shown = "(no candidate yet)"
    elif run.profile.name == "tuning":
        shown = json.dumps(candidate.content["parameters"], sort_keys=True)
    else:
        shown = "\n".join(
            f"--- {name}\n{text}" for name, text in candidate.content.get("files", {}).items()
        )
    parts = [
        f"Task {run.task.task_id} ({run.profile.name}); model {run.task.model_name}.",
        f"Brief:\n{run.task.brief}",
        f"Permitted actions: {', '.join(sorted(run.profile.permitted))}.",
        f"Candidate: {run.profile.candidate}. Submission: {run.profile.submission}.",
        f"Ledger:\n{status.text}",
        f"Current candidate content:\n{shown}",
    ]
    if last_result is not None:
        parts.append("Last result:\n" + json.dumps(last_result, sort_keys=True)[:4000])
    return "\n\n".join(parts)


Action = tuple[str, dict[str, Any]]
Policy = Callable[[str, dict[str, Any] | None], Action | None]


def drive(
    run: Run,
    policy: Policy,
    call: Callable[[str, dict[str, Any]], dict[str, Any]],
    *,
    count_tokens: Callable[[str], int] = lambda text: len(text) // 4,
) -> Outcome:
    """Run the harness loop until the policy stops, the run submits, or a limit ends it.

    `call(tool, arguments)` runs a tool (through the registry) and returns the outcome as a dict.
    Logical tokens per turn are estimated from the context shown (a real model reports its own).
    """
    last: dict[str, Any] | None = None
    while run.state == "running":
        context = turn_context(run, last)
        run.begin_turn(tokens=count_tokens(context))
        if run.state != "running":
            break
        action = policy(context, last)
        if action is None:
            break
        name, arguments = action
        if name not in TOOL_NAMES:
            last = {"ok": False, "error": f"{name} is not a Modelica specialist tool"}
            continue
        last = call(name, {"run": run.id, **arguments})
    return run.finish()
