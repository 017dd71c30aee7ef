"""Prompt overhead: tokens of system prompt + tool schemas each model call carries.

Compares the supervisor and each specialist (only its own short tool list) with one agent that
holds every registered tool. Tokens are estimated without a tokenizer (characters / 4, rounded up)
so the numbers are reproducible on any machine; use them as ratios, not absolute counts.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.agents.prompts import specialist_prompt, supervisor_prompt
from workbench.agents.scripted import estimate_tokens
from workbench.agents.toolbridge import CLARIFY, handoff_schema, schemas_for
from workbench.core.context import AppContext
from workbench.core.plugins import Specialist

SINGLE_AGENT_PROMPT = (
    "You are the engineering workbench agent. Use your tools to do what the engineer asks, "
    "then answer in plain text."
)


def _cost(prompt: str, schemas: list[dict[str, Any]]) -> dict[str, int]:
    prompt_tokens = estimate_tokens(prompt)
    tool_tokens = estimate_tokens(json.dumps(schemas, separators=(",", ":")))
    return {
        "prompt_tokens": prompt_tokens,
        "tool_tokens": tool_tokens,
        "total_tokens": prompt_tokens + tool_tokens,
        "tools": len(schemas),
    }


def prompt_overhead(context: AppContext, specialists: list[Specialist] | None = None) -> dict:
    if specialists is None:
        specialists = [p.specialist for p in context.plugins if p.specialist is not None]
    supervisor = _cost(
        supervisor_prompt(specialists),
        [handoff_schema(s.name, s.description) for s in specialists],
    )
    per_specialist = {
        s.name: _cost(specialist_prompt(s), schemas_for(context, s.tools)) for s in specialists
    }
    every_tool = context.registry.names()
    if any(CLARIFY in s.tools for s in specialists):
        every_tool.append(CLARIFY)
    single_prompt = "\n\n".join([SINGLE_AGENT_PROMPT, *(s.prompt for s in specialists)])
    single = _cost(single_prompt, schemas_for(context, every_tool))
    largest = max((c["total_tokens"] for c in per_specialist.values()), default=0)
    return {
        "estimate": "characters/4",
        "supervisor": supervisor,
        "specialists": per_specialist,
        "single_agent": single,
        # one routed request costs a supervisor call plus a specialist call
        "routed_call_max_tokens": supervisor["total_tokens"] + largest,
        "single_agent_to_largest_specialist": (
            round(single["total_tokens"] / largest, 3) if largest else None
        ),
    }
