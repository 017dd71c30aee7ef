"""What a policy sees each turn of a Modelica task run, and a loop for scripted policies.

Each turn the policy sees the brief, the ledger and the current candidate (`turn_context`), not
the whole history: that is where Pufibara's token savings come from. A language model drives a
run through `driver` (the agents runtime's turn loop); `drive` runs a plain Python policy (tests,
bench reference policies) through the same harness. The specialist's prompt and tool list are in
`specialist`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from workbench_plugins.modelica.harness import Outcome, Run
from workbench_plugins.modelica.run_status import status_of
from workbench_plugins.modelica.specialist import TOOLS

LAST_RESULT_CHARACTERS = 4000  # a long simulation result is cut: the ledger keeps the rest


def turn_context(run: Run, last_result: Any = None, *, reminder: str = "") -> str:
    """What the policy sees each turn: brief, ledger status and limits, current candidate, the
    last turn's results (a dict, or a list of them) and, if any, a one-line reminder."""
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
        text = json.dumps(last_result, sort_keys=True, default=str)
        parts.append("Last result:\n" + text[:LAST_RESULT_CHARACTERS])
    if reminder:
        parts.append(reminder)
    return "\n\n".join(parts)


Action = tuple[str, dict[str, Any]]
Policy = Callable[[str, dict[str, Any] | None], Action | None]
TurnTokens = Callable[[str], Mapping[str, int]]


def drive(
    run: Run,
    policy: Policy,
    call: Callable[[str, dict[str, Any]], dict[str, Any]],
    *,
    tokens: TurnTokens | None = None,
) -> Outcome:
    """Run the harness loop until the policy stops, the run submits, or a limit ends it.

    `call(tool, arguments)` runs a tool (through the registry) and returns the outcome as a dict.
    `tokens(context)` gives the tokens the caller's policy spent on a turn (harness.TOKEN_KINDS);
    nothing is estimated: a policy that reports none costs none.
    """
    last: dict[str, Any] | None = None
    while run.turn_allowed():
        context = turn_context(run, last)
        action = policy(context, last)
        run.begin_turn(tokens=tokens(context) if tokens else None)
        if action is None:
            break
        name, arguments = action
        if name not in TOOLS:
            last = {"ok": False, "error": f"{name} is not a Modelica specialist tool"}
            continue
        last = call(name, {"run": run.id, **arguments})
    return run.finish()
