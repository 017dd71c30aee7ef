"""The registry's tools as MCP tools: schemas from their pydantic models, hints from side effects.

`ask_human_for_clarification` is left out: an MCP client has its own user to ask.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from workbench.core.registry import ToolRegistry
from workbench.core.tools import SideEffect, Tool

NOT_SERVED = frozenset({"ask_human_for_clarification"})
APPROVAL_NOTE = (
    " Acts on the physical world: needs a person's approval (the server's --approve flag, or "
    "the Workbench desktop app's prompt)."
)


def served_tools(registry: ToolRegistry) -> list[Tool]:
    found = (registry.get(name) for name in registry.names() if name not in NOT_SERVED)
    return [tool for tool in found if tool is not None]


def mcp_tool(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        description=tool.description + (APPROVAL_NOTE if tool.confirm else ""),
        input_schema=_object_schema(tool.args.model_json_schema()),
        output_schema=_output_schema(tool),
        annotations=types.ToolAnnotations(
            read_only_hint=tool.side_effect is SideEffect.READ,
            destructive_hint=tool.side_effect in (SideEffect.WRITE, SideEffect.PHYSICAL),
            open_world_hint=True if tool.side_effect is SideEffect.PHYSICAL else None,
        ),
        meta={"workbench/side_effect": tool.side_effect.value, "workbench/confirm": tool.confirm},
    )


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """MCP wants `type: object` at the root; an argument model without fields has no properties."""
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema


def _output_schema(tool: Tool) -> dict[str, Any] | None:
    """The result model's schema as the client receives it (serialised), when it is an object.

    Clients check structured results against it, so a model whose schema cannot be a plain
    object (a root model) gets none rather than one every result would fail."""
    schema = tool.result.model_json_schema(mode="serialization")
    return schema if schema.get("type") == "object" else None
