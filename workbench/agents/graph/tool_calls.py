"""One tool call of a specialist: whether it needs a person first (a clarification, or a
confirmation for a physical action or files outside the workspace), and running it with the
person's decision."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langchain_core.messages import ToolCall

from workbench.agents.graph.messages import id_of
from workbench.agents.hitl import parse_clarification, parse_confirmation
from workbench.agents.toolbridge import (
    CLARIFY,
    ToolRun,
    clarification_question,
    record_refusal,
    run_tool,
)
from workbench.core.context import AppContext
from workbench.core.tools import ToolError


def human_request(
    context: AppContext, agent: str, allowed: list[str], call: ToolCall
) -> dict[str, Any] | None:
    """The interrupt payload when the call needs a person, else None."""
    if call["name"] == CLARIFY and CLARIFY in allowed:
        question = clarification_question(call["args"])
        if question:
            return {"kind": "clarification", "agent": agent, "question": question}
        return None
    registry = context.registry
    tool = registry.get(call["name"])
    if tool is None or call["name"] not in allowed:
        return None
    # a physical action, or files outside the workspace; None too for a call the registry
    # would reject anyway (no point asking a person about it)
    needed = registry.confirmation_needed(tool.name, call["args"])
    if needed is None:
        return None
    files = "".join(f"\n  {path}" for path in needed.paths)
    where = f" It uses files outside the workspace:{files}\n" if files else " "
    shown = needed.message.splitlines()[1:]  # the tool's account of this call (and the files)
    if shown and not files:
        where = "\n" + "\n".join(shown) + "\n"
    return {
        "kind": "confirmation",
        "agent": agent,
        "tool": tool.name,
        "arguments": call["args"],
        "question": f"{agent} wants to run {tool.name} ({tool.side_effect.value}): "
        f"{tool.description}{where}Allow it?",
    }


async def run_call(
    context: AppContext,
    agent: str,
    allowed: list[str],
    call: ToolCall,
    decisions: dict[str, Any],
) -> ToolRun:
    """Run the call; `decisions` holds the person's answers by call id (from the interrupts)."""
    call_id = id_of(call)
    if call["name"] == CLARIFY and CLARIFY in allowed:
        if call_id in decisions:
            return ToolRun(CLARIFY, True, parse_clarification(decisions[call_id]), 0.0)
        error = ToolError(
            tool=CLARIFY,
            kind="invalid_arguments",
            message=f"{CLARIFY} needs a question.",
            hint='Call it as {"clarification_request": "<one clear question>"}.',
        )
        return record_refusal(context, agent, CLARIFY, call["args"], error)
    if call_id not in decisions:
        return await run_tool(context, agent, call["name"], call["args"], allowed)
    decision = parse_confirmation(decisions[call_id])
    run = await run_tool(
        context, agent, call["name"], call["args"], allowed, confirmed=decision.approved
    )
    if decision.approved:
        return run
    because = f" ({decision.reason})" if decision.reason else ""
    return replace(
        run,
        content=f"The engineer declined to run {call['name']}{because}. Do not call it "
        "again for this task; report what you would have done instead.",
    )
