"""The chat's slash commands as text: parsing what the engineer typed, and what /help, /tools and
/describe print. Pure functions; the controller and `ToolCalls` act on the results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from workbench.core.registry import ToolRegistry
from workbench.core.tools import Tool

HELP_TEXT = (
    "Write a message to talk to the agent. Commands:\n"
    "  /tools                  list the tools of the loaded plugins\n"
    "  /describe NAME          a tool's arguments\n"
    '  /tool NAME {"arg": 1}   call a tool yourself, with JSON arguments\n'
    "  /new                    start a new conversation\n"
    "  /clear                  empty this view (the conversation is kept)\n"
    "  /help                   this text"
)
PLAIN_COMMANDS = ("/help", "/tools", "/clear", "/new")
TOOL_USAGE = 'Usage: /tool NAME {"arg": value}'


class CommandError(ValueError):
    """A command the chat cannot run as typed; the message says why and how to write it."""


@dataclass(frozen=True)
class SlashCommand:
    name: str  # with its slash: "/tool"
    rest: str  # what follows the name, stripped


def parse_input(text: str) -> SlashCommand | None:
    """`/name rest...` as a command; None when the text is a message for the agent."""
    name, _, rest = text.partition(" ")
    if not name.startswith("/"):
        return None
    return SlashCommand(name, rest.strip())


def parse_tool_call(rest: str) -> tuple[str, dict[str, Any]]:
    """What follows `/tool`: the tool's name and its JSON object of arguments (may be omitted)."""
    name, _, raw_arguments = rest.partition(" ")
    if not name:
        raise CommandError(TOOL_USAGE)
    raw = raw_arguments.strip()
    if not raw:
        return name, {}
    try:
        arguments = json.loads(raw)
    except json.JSONDecodeError as error:
        raise CommandError(
            f"The arguments of {name} are not valid JSON: {error.msg} at column {error.colno}."
            f'\nWrite them as a JSON object, e.g. /tool {name} {{"field": 1}}'
        ) from None
    if not isinstance(arguments, dict):
        raise CommandError(
            f"The arguments of {name} must be a JSON object ({{...}}), "
            f"not {type(arguments).__name__}."
        )
    return name, arguments


def tool_listing(registry: ToolRegistry) -> str:
    """/tools: one line per tool, with its side effect and the first line of its description."""
    lines = []
    for name in registry.names():
        tool = registry.get(name)
        if tool is None:  # unloaded meanwhile
            continue
        summary = tool.description.strip().splitlines()[0] if tool.description else ""
        lines.append(f"{name} [{tool.side_effect.value}] — {summary}")
    return "Tools:\n" + "\n".join(lines)


def tool_description(tool: Tool) -> str:
    """/describe NAME: the description, then each argument with its type and default."""
    schema = tool.args.model_json_schema()
    required = set(schema.get("required", []))
    lines = [tool.description.strip(), "", "Arguments:"]
    for field, spec in schema.get("properties", {}).items():
        kind = spec.get("type") or " | ".join(
            str(option.get("type", "?")) for option in spec.get("anyOf", [])
        )
        default = "" if field in required else f" = {json.dumps(spec.get('default'))}"
        note = f" — {spec['description']}" if spec.get("description") else ""
        lines.append(f"  {field}: {kind}{default}{note}")
    if tool.confirm:
        lines.append("This tool acts on the physical world: you will be asked to confirm.")
    return "\n".join(lines)


def unknown_tool(registry: ToolRegistry, name: str) -> str:
    known = ", ".join(registry.names()) or "none"
    return f"There is no tool named {name!r}. Known tools: {known}."


def completions(tool_names: list[str]) -> list[str]:
    """What the input line offers to complete: the commands, with each tool's name."""
    commands = list(PLAIN_COMMANDS)
    commands += [f"/tool {name} " for name in tool_names]
    commands += [f"/describe {name}" for name in tool_names]
    return commands
