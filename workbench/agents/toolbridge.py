"""Registry tools as model tool schemas, and model tool calls run through the one registry.

Every call a model makes is recorded in the workspace store with caller "agent:<name>", including
the ones that never reach a tool (unknown name, unparseable arguments): those are refused here and
recorded with the same `ToolError` shape the registry uses, so a fuzzed reply always leaves a trace.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from workbench.core.context import AppContext
from workbench.core.events import ToolCalled
from workbench.core.tools import FieldProblem, Tool, ToolError

CLARIFY = "ask_human_for_clarification"
CLARIFY_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": CLARIFY,
        "description": "Ask the engineer a question when the task is unclear; returns the answer.",
        "parameters": {
            "type": "object",
            # the reference implementation's argument name, so benchmark prompts transfer
            "properties": {
                "clarification_request": {"type": "string", "description": "One clear question"}
            },
            "required": ["clarification_request"],
        },
    },
}


def clarification_question(arguments: dict[str, Any]) -> str:
    """The question of a clarification call; "question" is accepted too (models improvise)."""
    for key in ("clarification_request", "question"):
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def caller_of(agent: str) -> str:
    return f"agent:{agent}"


def tool_schema(tool: Tool) -> dict[str, Any]:
    """OpenAI-style function schema (what bind_tools accepts for every backend)."""
    parameters = dict(tool.describe()["arguments"])
    parameters.pop("title", None)  # the model needs the fields, not the pydantic class name
    description = tool.description
    if tool.confirm:
        description += " (A person must confirm each call.)"
    return {
        "type": "function",
        "function": {"name": tool.name, "description": description, "parameters": parameters},
    }


def handoff_name(specialist: str) -> str:
    return f"transfer_to_{specialist}"


def handoff_schema(name: str, description: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": handoff_name(name),
            "description": f"Hand the request to the {name} specialist: {description}",
            "parameters": {
                "type": "object",
                "properties": {
                    "task": {
                        "type": "string",
                        "description": "A complete, self-contained instruction for the specialist",
                    }
                },
                "required": ["task"],
            },
        },
    }


def schemas_for(context: AppContext, names: tuple[str, ...] | list[str]) -> list[dict[str, Any]]:
    """Schemas of the named tools that exist (the clarification tool is built in)."""
    found = []
    for name in names:
        if name == CLARIFY:
            found.append(CLARIFY_SCHEMA)
        elif (tool := context.registry.get(name)) is not None:
            found.append(tool_schema(tool))
    return found


@dataclass(frozen=True)
class ToolRun:
    """One tool call as the model will hear of it."""

    tool: str
    ok: bool
    content: str  # the ToolMessage content
    duration_s: float
    store_call_id: int | None = None
    result: dict[str, Any] | None = None
    error: ToolError | None = None

    @property
    def malformed(self) -> bool:
        """The model's fault (counts towards its retry budget), unlike a tool failing."""
        return self.error is not None and self.error.kind in ("unknown_tool", "invalid_arguments")


def record_refusal(
    context: AppContext, agent: str, name: str, arguments: Any, error: ToolError
) -> ToolRun:
    """Record a call that never reached the registry, the way the registry records its own."""
    store = context.store
    call_id = store.begin_tool_call(
        tool=name or "(none)", caller=caller_of(agent), arguments=arguments
    )
    store.finish_tool_call(call_id, ok=False, error=error.model_dump(), duration_s=0.0)
    context.bus.publish(
        ToolCalled(tool=name, caller=caller_of(agent), ok=False, duration_s=0.0, call_id=call_id)
    )
    return ToolRun(name, False, error.explain(), 0.0, store_call_id=call_id, error=error)


def unknown_tool(agent: str, name: str, allowed: list[str]) -> ToolError:
    return ToolError(
        tool=name,
        kind="unknown_tool",
        message=f"There is no tool named {name!r} available to {agent}.",
        hint="Your tools: " + (", ".join(allowed) or "none; answer in plain text."),
    )


def unparseable(name: str, raw: Any, problem: str) -> ToolError:
    return ToolError(
        tool=name,
        kind="invalid_arguments",
        message=f"The arguments for {name} are not a valid JSON object ({problem}).",
        hint="Call again with the arguments as one JSON object; nothing was run.",
        problems=[
            FieldProblem(
                field="(arguments)",
                constraint="json_invalid",
                message=problem,
                input=str(raw)[:500],
            )
        ],
    )


async def run_tool(
    context: AppContext,
    agent: str,
    name: str,
    arguments: Any,
    allowed: list[str],
    *,
    confirmed: bool = False,
) -> ToolRun:
    """Run one model tool call through the registry (recorded); refusals are recorded too."""
    if name not in allowed or context.registry.get(name) is None:
        return record_refusal(context, agent, name, arguments, unknown_tool(agent, name, allowed))
    if not isinstance(arguments, dict):
        return record_refusal(
            context, agent, name, arguments, unparseable(name, arguments, "not an object")
        )
    started = time.perf_counter()
    outcome = await context.registry.acall(
        name, arguments, caller=caller_of(agent), confirmed=confirmed
    )
    if outcome.ok:
        content = json.dumps(outcome.result, default=str)
    elif outcome.error is not None:
        content = outcome.error.explain()
    else:  # the registry gives every failed call an error
        raise RuntimeError(f"{name} failed without an error")
    return ToolRun(
        name,
        outcome.ok,
        content,
        time.perf_counter() - started,
        store_call_id=outcome.call_id,
        result=outcome.result,
        error=outcome.error,
    )
