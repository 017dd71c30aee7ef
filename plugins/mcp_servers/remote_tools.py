"""An external server's tools as registry tools: `<server>__<tool>`, the server's own argument
schema, its result in words.

The argument model passes the server's inputSchema through unchanged (what the model sees is what
the server asked for) and checks calls against it before anything is sent, so a bad call is
refused with the field and the rule it broke, like any registry tool's. The tools the user marks
as acting on the world are physical: each call waits for a person's confirmation.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar

import jsonschema
import jsonschema.exceptions
from mcp_types import CallToolResult, ContentBlock
from mcp_types import Tool as RemoteTool
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.mcp_servers import client, sessions
from workbench_plugins.mcp_servers.config import McpServer

NAME_LIMIT = 64  # what model APIs allow in a tool name ([A-Za-z0-9_-], up to 64)
TEXT_LIMIT = 20_000  # characters of a result's text handed to the model
DESCRIPTION_LIMIT = 1_000
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


def registry_name(server: str, tool: str) -> str:
    """`<server>__<tool>` in the characters model tool names allow (a long one keeps a hash)."""
    name = _NOT_ALLOWED.sub("_", f"{server}__{tool}")
    if len(name) <= NAME_LIMIT:
        return name
    digest = hashlib.sha256(tool.encode()).hexdigest()[:8]
    return f"{name[: NAME_LIMIT - 9]}_{digest}"


class RemoteArguments(BaseModel):
    """Arguments of a remote tool: whatever its server's schema allows, checked against it."""

    model_config = ConfigDict(extra="allow")
    remote_schema: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return copy.deepcopy(cls.remote_schema)

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> RemoteArguments:
        problems = schema_problems(cls.remote_schema, obj)
        if problems:
            raise ValidationError.from_exception_data(cls.__name__, problems)
        return super().model_validate(obj, *args, **kwargs)


def schema_problems(schema: dict[str, Any], value: Any) -> list[InitErrorDetails]:
    """Where `value` breaks `schema`, as pydantic line errors (field, rule, message). A schema
    that is itself broken checks nothing here: the server still checks the call."""
    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
        errors = list(validator_class(schema).iter_errors(value))
    except jsonschema.exceptions.SchemaError:
        return []
    found: list[InitErrorDetails] = []
    for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        path = tuple(error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            missing = [key for key in error.validator_value if key not in error.instance]
            found += [
                InitErrorDetails(type="missing", loc=(*path, key), input=error.instance)
                for key in missing
            ]
            continue
        rule = PydanticCustomError(
            f"schema_{error.validator}", "{message}", {"message": error.message}
        )
        found.append(InitErrorDetails(type=rule, loc=path, input=error.instance))
    unique = {(str(item["loc"]), str(item["type"])): item for item in found}
    return list(unique.values())


class RemoteToolResult(BaseModel):
    # what the server said first: the chat card's summary shows the fields in this order
    text: str = Field(description="What the server returned, in words")
    structured: dict[str, Any] | None = Field(
        None, description="The server's structured result, when it gives one"
    )
    server: str
    tool: str = Field(description="The tool's name on its server")
    truncated: bool = Field(False, description="The text was cut to its first characters")


def remote_tools(server: McpServer, listed: list[RemoteTool]) -> list[Tool]:
    """One registry tool per listed remote tool; those in `world_tools` ask before each call."""
    return [_tool(server, remote) for remote in listed]


def _tool(server: McpServer, remote: RemoteTool) -> Tool:
    schema = dict(remote.input_schema or {})
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    name = registry_name(server.name, remote.name)
    arguments = type(f"{name}_arguments", (RemoteArguments,), {"remote_schema": schema})
    world = remote.name in server.world_tools
    about = (remote.description or remote.title or "(no description)").strip()
    return Tool(
        name=name,
        description=f"{about[:DESCRIPTION_LIMIT]} [tool {remote.name!r} of MCP server "
        f"{server.name!r}]",
        args=arguments,
        result=RemoteToolResult,
        run=_runner(server, remote.name),
        side_effect=SideEffect.PHYSICAL if world else SideEffect.COMPUTE,
        needs_confirmation=world,
        confirm_shows=lambda _args, _context: f"on MCP server {server.name!r} ({server.target()})",
    )


def _runner(
    server: McpServer, remote: str
) -> Callable[[BaseModel, ToolContext], Coroutine[Any, Any, RemoteToolResult]]:
    async def run(arguments: BaseModel, context: ToolContext) -> RemoteToolResult:
        try:
            answer = await sessions.call_tool(
                server, context.app.store.folder, remote, arguments.model_dump()
            )
        except client.McpServerError as failed:
            raise ToolFailure(failed.message, failed.hint) from failed
        return result_of(server, remote, answer)

    return run


def result_of(server: McpServer, remote: str, answer: CallToolResult) -> RemoteToolResult:
    """The server's answer for the model; an error result is a ToolFailure in its own words."""
    text = "\n".join(_in_words(block) for block in answer.content).strip()
    if answer.is_error:
        raise ToolFailure(
            f"{remote} on MCP server {server.name!r} reported an error: "
            f"{text[:TEXT_LIMIT] or '(no message)'}",
            "Read the server's words above: fix the arguments, or tell the person what failed.",
        )
    structured = answer.structured_content
    if not text and structured is not None:
        text = str(structured)
    return RemoteToolResult(
        server=server.name,
        tool=remote,
        text=text[:TEXT_LIMIT],
        structured=structured,
        truncated=len(text) > TEXT_LIMIT,
    )


def _in_words(block: ContentBlock) -> str:
    """Text as it is; anything else named with its kind (a model reads words, not bytes)."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        data = str(getattr(block, "data", ""))
        return f"[{kind} {getattr(block, 'mime_type', '')}, {len(data) * 3 // 4} bytes]"
    if kind == "resource":
        resource = getattr(block, "resource", None)
        inner = getattr(resource, "text", None)
        return str(inner) if inner is not None else f"[resource {getattr(resource, 'uri', '')}]"
    if kind == "resource_link":
        return f"[link {getattr(block, 'name', '')}: {getattr(block, 'uri', '')}]"
    return f"[{kind or 'content'}]"
