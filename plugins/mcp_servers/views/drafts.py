"""What the MCP servers view edits, without Qt: a draft per server (as typed), turned into
settings with every problem in words."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from workbench_plugins.mcp_servers.client import Listing
from workbench_plugins.mcp_servers.config import McpServer, McpServersSettings

NAME_RULE = "a short name: a-z, 0-9 and _, starting with a letter, up to 24 characters"


@dataclass
class Draft:
    """One server as typed in the view (not yet saved)."""

    name: str = ""
    description: str = ""
    kind: Literal["stdio", "http"] = "stdio"
    command_line: str = ""  # the program and its arguments, quoted as in a shell
    cwd: str = ""
    url: str = ""
    enabled: bool = True
    world_tools: list[str] = field(default_factory=list)
    token: str = ""  # typed, stored in the keyring on Save, never in the settings
    kept: dict[str, Any] = field(default_factory=dict)  # fields the view does not edit
    listing: Listing | None = None  # what the last Test found
    test_text: str = ""
    test_level: str = ""  # "ok" | "fail" | ""


def draft_of(server: McpServer) -> Draft:
    return Draft(
        name=server.name,
        description=server.description,
        kind=server.transport,
        command_line=shlex.join([server.command, *server.args]) if server.command else "",
        cwd=server.cwd,
        url=server.url,
        enabled=server.enabled,
        world_tools=list(server.world_tools),
        kept=server.model_dump(include={"env", "secret_env", "timeout_s", "call_timeout_s"}),
    )


def new_draft(taken: list[str]) -> Draft:
    number = 1
    while f"server{number}" in taken:
        number += 1
    return Draft(name=f"server{number}")


def server_of(draft: Draft) -> McpServer:
    """The server the draft describes; ValueError saying what is wrong, in words."""
    values: dict[str, Any] = {
        **draft.kept,
        "name": draft.name.strip(),
        "description": draft.description.strip(),
        "enabled": draft.enabled,
        "world_tools": list(draft.world_tools),
    }
    if draft.kind == "stdio":
        try:
            words = shlex.split(draft.command_line)
        except ValueError as error:
            raise ValueError(
                f"the command line cannot be read ({error}); check its quotes"
            ) from None
        if not words:
            raise ValueError("type the command that starts the server, e.g. `npx -y some-server`")
        values.update(command=words[0], args=words[1:], cwd=draft.cwd.strip())
    else:
        values.update(url=draft.url.strip())
    try:
        return McpServer.model_validate(values)
    except ValidationError as invalid:
        raise ValueError("; ".join(_in_words(item) for item in invalid.errors())) from None


def settings_of(drafts: list[Draft]) -> tuple[McpServersSettings | None, str]:
    """The settings the drafts make, or None and every problem (by server) in words."""
    servers: list[McpServer] = []
    problems: list[str] = []
    for number, draft in enumerate(drafts, start=1):
        try:
            servers.append(server_of(draft))
        except ValueError as error:
            problems.append(f"server {number} ({draft.name or 'unnamed'}): {error}")
    if problems:
        return None, "Not saved. " + " ".join(problems)
    try:
        return McpServersSettings(servers=servers), ""
    except ValidationError as invalid:
        return None, "Not saved. " + "; ".join(_in_words(item) for item in invalid.errors())


def _in_words(item: Any) -> str:
    where = ".".join(str(part) for part in item.get("loc", ()))
    if item.get("type") == "string_pattern_mismatch" and where.endswith("name"):
        return f"the name must be {NAME_RULE}"
    message = str(item.get("msg", "")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message
