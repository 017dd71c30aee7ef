"""The specialist of one external MCP server: its description for the supervisor and its prompt,
made from the settings and what the server says about itself and its tools."""

from __future__ import annotations

from workbench.core.plugins import Specialist
from workbench.core.tools import Tool
from workbench_plugins.mcp_servers.client import Listing
from workbench_plugins.mcp_servers.config import McpServer

CLARIFY = "ask_human_for_clarification"  # the runtime's built-in question to the engineer
INSTRUCTIONS_LIMIT = 1_500  # characters of the server's own instructions in the prompt
DESCRIPTION_LIMIT = 300
TOOL_LINE_LIMIT = 200

RULES = """How to work:
- Call the tools with arguments exactly as their schemas say. Report the values the tools
  returned, with their units; never state a result no tool gave.
- A tool marked "(A person must confirm each call.)" acts on the world: call it only when the
  task asks for exactly that action; the engineer is asked before it runs.
- If a tool or the server fails, report the error in its own words and what the engineer can do;
  do not retry more than once."""


def specialist_for(server: McpServer, listing: Listing, tools: list[Tool]) -> Specialist:
    names = [tool.name for tool in tools]
    return Specialist(
        name=server.specialist_name,
        description=_description(server, listing, tools),
        prompt=_prompt(server, listing, tools),
        tools=(*names, CLARIFY),
    )


def _description(server: McpServer, listing: Listing, tools: list[Tool]) -> str:
    about = server.description.strip() or _first_line(listing.instructions)
    about = about or f"Tools of the external MCP server {server.name!r}"
    remote = ", ".join(_remote_name(server, tool) for tool in tools) or "none"
    return f"{about.rstrip('.')} (external MCP server; tools: {remote})"[:DESCRIPTION_LIMIT]


def _prompt(server: McpServer, listing: Listing, tools: list[Tool]) -> str:
    lines = [
        f"You are the specialist for the external MCP server {server.name!r} "
        f"({server.target()}). You work through its tools only."
    ]
    if server.description.strip():
        lines.append(f"What it is for: {server.description.strip()}")
    if listing.instructions.strip():
        lines.append(
            "The server's own instructions:\n" + listing.instructions.strip()[:INSTRUCTIONS_LIMIT]
        )
    lines.append("Your tools:")
    for tool in tools:
        mark = " (acts on the world: a person confirms each call)" if tool.confirm else ""
        lines.append(f"- {tool.name}: {tool.description[:TOOL_LINE_LIMIT]}{mark}")
    if not tools:
        lines.append("- none: the server lists no tools; say so.")
    lines.append(RULES)
    return "\n".join(lines)


def _remote_name(server: McpServer, tool: Tool) -> str:
    prefix = f"{server.name}__"
    return tool.name[len(prefix) :] if tool.name.startswith(prefix) else tool.name


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
