"""The Modelica specialist: its prompt, its tool list, and the harness loop that drives a policy.

Each turn the policy sees the brief, the ledger and the current candidate (`turn_context`), not
the whole history: that is where Pufibara's token savings come from. A policy is anything that
maps that context (plus the last tool result) to the next tool call, or to None to stop; a
language model behind the agents runtime is one, the tests use scripted fakes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

TOOL_NAMES: tuple[str, ...] = (
    "read_file",
    "write_file",
    "check_model",
    "simulate",
    "evaluate_observable",
    "add_invariant",
    "record_evidence",
    "ledger_status",
    "submit",
)

PROMPT = """\
You are the Modelica specialist. You repair, write or tune Modelica models so that they meet an
engineering brief, and you prove every claim by simulation before you submit.

Work in this loop:
1. Brief -> ledger. Read the brief and turn each requirement into an invariant with add_invariant:
   a proposition, the observables that decide it (e.g. "T at t=900", "max(x)", "settling time of
   v"), the scenarios it must hold in (stop time, parameters, initial conditions), and the
   condition (target and tolerance, or bounds). Add physical invariants too (signs, bounds,
   conservation) and interface constraints (model name, parameters the brief names).
2. Candidate. Read the workspace (read_file), then change it (write_file) or, in a tuning task,
   choose parameter values. Every change makes a new candidate: all invariants are open again for
   it and old evidence does not count. check_model first; fix every error it reports at the file
   and line given.
3. Targeted simulation. simulate only what an open invariant needs (its scenario's stop time and
   parameters; pass scenario=<name>). Note the sim_id.
4. Adjudication. evaluate_observable on that sim_id with the invariant's condition, then
   record_evidence(invariant, adjudication, sim=<sim_id>). A simulation that ran is not evidence
   until you adjudicate it.
5. Revise or submit. If an invariant is violated, revise the candidate and go back to 2. Use
   ledger_status to see what is still open. When the current candidate is ready (every required
   invariant supported), submit it explicitly with a short final report. Nothing is submitted for
   you: a run that ends without submit fails, and so does one that hits its limits (wall time,
   turns, simulations).

Rules: stay inside the task workspace; in a tuning task change only the tunable parameters within
their ranges; never claim a requirement holds without evidence for the current candidate.
"""


def turn_context(run: Any, last_result: dict[str, Any] | None = None) -> str:
    """What the policy sees each turn: brief, ledger status, current candidate, last result."""
    from workbench_plugins.modelica.tools import status_of

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
    run: Any,
    policy: Policy,
    call: Callable[[str, dict[str, Any]], dict[str, Any]],
    *,
    count_tokens: Callable[[str], int] = lambda text: len(text) // 4,
) -> Any:
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
