"""The two policies that cheat (workbench.bench.earned) on a `modelica` task, each in a harness
run of the cell's own workspace, as an agent's run through `driver.run_task` would be:

- `offtarget:fails-every-call`: the reference's tool calls (those `policies.play_direct` makes
  for the reference on this task and mode), each with arguments the registry refuses;
- `offtarget:claims-without-work`: calls no tool and ends with a message stating that the task
  passed, with the reference's answer and the values of the contract's checks.

Neither changes the workspace. The run then ends as the mode ends it: the harness never submits
for the agent (a failure to submit); the plain loop submits its current candidate (a repair's
faulty input, a tuning task's untouched assignment; a generation task has none).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.bench.earned import CHEATS, CLAIMS_WITHOUT_WORK, claim_run, play_refused
from workbench.bench.tool_calls import PolicyRun
from workbench.core.context import AppContext
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.bench.policies import (
    Check,
    Played,
    Verifier,
    answer_of,
    checks_of,
    submit_or_end,
    work_on,
)
from workbench_plugins.modelica.task_packages.contract import ModelAnswer, ParameterAnswer
from workbench_plugins.modelica.task_packages.packages import TaskPackage

# what a rehearsed call "returns": a simulation that ran and a check the tool supports, so the
# rehearsal takes the reference's path through `work_on` and `submit_or_end`
_REHEARSED = {"ok": True, "sim_id": "sim1", "suggested_adjudication": "supported", "ready": True}


class Rehearsal:
    """Records the calls `work_on` and `submit_or_end` make, without making them (`Plays`)."""

    def __init__(self, run: harness.Run) -> None:
        self.run = run
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, tool: str, /, *, must_succeed: bool = True, **args: Any) -> dict[str, Any]:
        self.calls.append((tool, {"run": self.run.id, **args}))
        return dict(_REHEARSED)


def reference_calls(
    package: TaskPackage, mode: str, run: harness.Run
) -> list[tuple[str, dict[str, Any]]]:
    """The reference's calls on this task in this mode, with their arguments, in order."""
    rehearsal = Rehearsal(run)
    work_on(rehearsal, package, answer_of("reference", package), mode, "reference")
    if mode == "harness":  # the plain loop's submission is not a tool call
        submit_or_end(rehearsal, mode, "reference")
    return rehearsal.calls


def claimed_answer(package: TaskPackage, mode: str) -> str:
    """A final message as if the reference's work had been done: its answer and, for every
    check of the contract, the value the check wants, stated as measured."""
    task = package.task
    lines = [
        f"Task {task.task_id} is done: {task.model_name} passes checkModel and simulates to "
        f"{task.stop_time:g} s in {task.intervals} intervals."
    ]
    answer = package.contract.known_valid
    if isinstance(answer, ParameterAnswer):
        lines.append(f"Tuned parameter_set: {json.dumps(answer.parameter_set)}.")
    elif isinstance(answer, ModelAnswer):
        lines.append(f"The final model:\n{answer.final_model}")
    lines += [f"- {check.name}: {_claimed(check)}: supported." for check in checks_of(package)]
    ending = "Submitted; every invariant is supported." if mode == "harness" else "PASS."
    return "\n".join([*lines, ending])


def _claimed(check: Check) -> str:
    """The value a check wants, as if measured."""
    condition = check.condition
    if "target" in condition:
        return f"measured {condition['target']:g} (target {condition['target']:g})"
    if "equals" in condition:
        return f"{check.observable.get('direction', 'holds')}: {condition['equals']}"
    bound = "max" if "max" in condition else "min"
    return f"measured {condition[bound]:g}, within the {bound} {condition[bound]:g}"


def play_cheat(
    policy: str,
    package: TaskPackage,
    task: harness.Task,
    mode: str,
    app: AppContext,
    folder: Path,
    verify: Verifier | None,
) -> Played:
    """Play one of the CHEATS in a run rooted at `folder`, as `policies.play_direct` does."""
    if policy not in CHEATS:
        raise ValueError(f"{policy!r} is not one of {', '.join(CHEATS)}")
    caller = f"bench:{policy}"
    run = harness.start_run(task, folder, app.ledger, output=folder, verify=verify, driver=caller)
    try:
        played: PolicyRun
        if policy == CLAIMS_WITHOUT_WORK:
            played = claim_run(claimed_answer(package, mode))
        else:
            played = play_refused(app, caller, reference_calls(package, mode, run))
        for _ in range(len(played.calls) + 1):  # a turn per call, and the final message
            run.begin_turn()
        notes = [f"{sum(not c.ok for c in played.calls)} call(s) refused"] if played.calls else []
        if mode != "harness" and run.candidate is not None:
            run.submit_implicitly(f"plain loop ended ({policy})")
        outcome = run.finish()
    finally:
        harness.forget_run(run.id)
    return Played.of_run(outcome, played.calls, notes, played.answer)
