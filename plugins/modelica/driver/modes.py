"""The two ways a model works a task: the Pufibara harness, and the plain loop it is compared to.

Harness mode: each turn the model sees the system prompt and `turns.turn_context` (profile,
candidate, ledger, limits, the last turn's results), never the history; the run ends only when it
submits or a limit is reached, and a reply without a tool call costs a turn and earns a one-line
reminder. Plain mode: the same model with read_file/write_file/check_model/simulate only and the
full conversation; it ends when the model stops calling tools, and its last written model (tuning:
its last parameters) is submitted for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from workbench.agents.turn_loop import LoopResult, Turn, TurnLoop
from workbench_plugins.modelica.harness import Run
from workbench_plugins.modelica.specialist import WORKFLOW
from workbench_plugins.modelica.turns import turn_context

HARNESS_PROMPT = (
    "You are a Modelica engineer: repair, write or tune the task's model to its brief, proving "
    "claims by simulation.\n"
    + WORKFLOW
    + "Each turn you see only the task, the ledger and your last results: act with tool calls. "
    "The run ends when you submit or a limit is reached.\n"
)
REMINDER = (
    "Reminder: your last reply called no tool and cost a turn. Act with a tool call; only "
    "submit ends the run."
)
PLAIN_PROMPT = (
    "You are a Modelica engineer. Use the tools to read, write, check and simulate the model in "
    "the task workspace until the task is done, then reply with a short summary and no tool "
    "call. Your last written model (tuning: the parameters of your last simulation) is "
    "submitted as your answer.\n"
)
TOOL_RESULT_CHARACTERS = 6000  # of one tool result in the plain loop's history
AfterTurn = Callable[[Turn], None]


def results_of(turn: Turn) -> list[dict[str, Any]] | None:
    """The turn's tool results as the next harness context shows them."""
    if not turn.tool_results:
        return None
    shown: list[dict[str, Any]] = []
    for call in turn.tool_results:
        entry: dict[str, Any] = {"tool": call.name, "ok": call.ok}
        if call.ok:
            entry["result"] = call.run.result
        else:
            entry["error"] = call.run.error.explain() if call.run.error else call.run.content
        shown.append(entry)
    return shown


def drive_harness(run: Run, loop: TurnLoop, after_turn: AfterTurn) -> LoopResult:
    """Turns until the run submits or a limit ends it (or the loop is stopped)."""
    last: dict[str, Any] = {"results": None, "reminder": ""}

    def messages(turns: list[Turn]) -> list[BaseMessage] | None:
        if not run.turn_allowed():
            return None
        context = turn_context(run, last["results"], reminder=last["reminder"])
        return [SystemMessage(HARNESS_PROMPT), HumanMessage(context)]

    def go_on(turn: Turn) -> bool:
        run.begin_turn(tokens=turn.usage.kinds())
        last["results"] = results_of(turn)
        last["reminder"] = "" if turn.called_tools else REMINDER
        after_turn(turn)
        return run.state == "running"

    return loop.run(messages, go_on)


def plain_brief(run: Run) -> str:
    """The plain loop's first message: the task as a person would hand it over."""
    task = run.task
    lines = [
        f"Task {task.task_id} ({run.profile.name}): model {task.model_name}.",
        task.brief,
        f"Workspace files: {', '.join(run.workspace.files()) or 'none'}.",
        f"Verification: check the model and simulate it to {task.stop_time:g} s with "
        f"{task.intervals} intervals.",
    ]
    if run.profile.name == "tuning":
        ranges = {n: list(task.parameter_ranges.get(n, ())) for n in task.tunable_parameters}
        lines.append(
            "The model is frozen: set only these parameters, within their ranges, through "
            f"simulate's 'parameters': {json.dumps(ranges)}."
        )
    return "\n".join(line for line in lines if line)


def drive_plain(run: Run, loop: TurnLoop, after_turn: AfterTurn) -> LoopResult:
    """Turns until the model stops calling tools (or a limit); the history grows each turn."""
    history: list[BaseMessage] = [SystemMessage(PLAIN_PROMPT), HumanMessage(plain_brief(run))]

    def messages(turns: list[Turn]) -> list[BaseMessage] | None:
        return list(history) if run.turn_allowed() else None

    def go_on(turn: Turn) -> bool:
        run.begin_turn(tokens=turn.usage.kinds())
        history.extend(_answered(turn))
        after_turn(turn)
        return turn.called_tools and run.state == "running"

    return loop.run(messages, go_on)


def _answered(turn: Turn) -> list[BaseMessage]:
    """The reply and the answer to each of its tool calls, for the next call's history."""
    if turn.message is None:
        return []
    valid = {call["id"] for call in turn.message.tool_calls if call.get("id")}
    shown: list[BaseMessage] = [
        AIMessage(content=turn.message.content, tool_calls=turn.message.tool_calls)
    ]
    for call in turn.tool_results:
        content = call.run.content[:TOOL_RESULT_CHARACTERS]
        if call.call_id in valid:
            shown.append(ToolMessage(content, tool_call_id=call.call_id, name=call.name))
        else:  # an unparseable call has no id the API knows: say it in words
            shown.append(HumanMessage(f"Your call to {call.name or 'a tool'} failed: {content}"))
    return shown
