"""The MCP servers plugin's settings ([plugins.mcp_servers]): the external servers to use.

A server is started as a program speaking MCP over stdin/stdout (`command`, `args`, `env`, `cwd`)
or reached over streamable HTTP (`url`). Secrets never go here: an HTTP server's bearer token is
the keyring entry `mcp-server-<name>` (service `workbench`), and an environment variable a stdio
server needs a secret in (an API key) is named in `secret_env` and read from the keyring entry
`mcp-server-<name>:<VARIABLE>`.
"""

from __future__ import annotations

import shlex
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from workbench.core.settings import refuse_url_credentials

NAME_PATTERN = r"^[a-z][a-z0-9_]{0,23}$"
EDITOR = "workbench_plugins.mcp_servers.views:open_servers_dialog"


def token_entry(server: str) -> str:
    """The keyring entry (service `workbench`) of an HTTP server's bearer token."""
    return f"mcp-server-{server}"


def secret_env_entry(server: str, variable: str) -> str:
    """The keyring entry of environment variable `variable` of a stdio server."""
    return f"mcp-server-{server}:{variable}"


class McpServer(BaseModel):
    # hide_input_in_errors: a refused URL may hold a password, which must not reach a message
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    name: str = Field(
        ...,
        pattern=NAME_PATTERN,
        description="Short name (a-z, 0-9, _; up to 24): its specialist is mcp_<name>",
    )
    description: str = Field(
        "", description="What the server is for, in words: the supervisor routes by it"
    )
    command: str = Field("", description="stdio: the program that starts the server")
    args: list[str] = Field(default_factory=list, description="stdio: the program's arguments")
    env: dict[str, str] = Field(
        default_factory=dict,
        description="stdio: extra environment variables (no secrets: use secret_env)",
    )
    secret_env: list[str] = Field(
        default_factory=list,
        description="stdio: variables whose values are in the keyring (mcp-server-<name>:<VAR>)",
    )
    cwd: str = Field("", description="stdio: the folder to start it in (empty: the workspace)")
    url: str = Field(
        "", description="HTTP: the server's address (token in the keyring as mcp-server-<name>)"
    )
    world_tools: list[str] = Field(
        default_factory=list,
        description="Its tools that act on the world: each call needs a person's confirmation",
    )
    enabled: bool = Field(True, description="Offer this server to the agent")
    timeout_s: float = Field(
        20.0,
        gt=0,
        le=45,  # the agent waits for it before a run (and the runtime for at most 60 s)
        description="Give up connecting after this long (at most 45 s)",
    )
    call_timeout_s: float = Field(
        300.0, gt=0, description="Give up on one tool call after this long"
    )

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        url = url.strip()
        if url and not url.startswith(("http://", "https://")):
            raise ValueError(f"url must start with http:// or https:// (got {url!r})")
        return url

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if bool(self.command.strip()) == bool(self.url):
            raise ValueError(
                f"server {self.name!r} needs either a command (stdio) or a url (HTTP), not "
                f"{'both' if self.url else 'neither'}"
            )
        refuse_url_credentials(
            self.url, f"plugins.mcp_servers.servers[{self.name}].url", token_entry(self.name)
        )
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "http" if self.url else "stdio"

    @property
    def specialist_name(self) -> str:
        return f"mcp_{self.name}"

    def connection(self) -> str:
        """How it is reached (not its description, world tools or switch): a new value means
        a new session and a new listing."""
        fields = {"command", "args", "env", "secret_env", "cwd", "url"}
        return self.model_dump_json(include=fields)

    def target(self) -> str:
        """Where it is, for people: "stdio: python server.py" or "http: https://host/mcp"."""
        if self.url:
            return f"http: {self.url}"
        return f"stdio: {shlex.join([self.command, *self.args])}"


class McpServersSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    servers: list[McpServer] = Field(
        default_factory=list,
        description="External MCP servers whose tools the agent may use, one specialist each",
        # the settings form shows a count and a button to this editor (core UI never imports it)
        json_schema_extra={"edited_in": "the MCP servers view", "editor": EDITOR},
    )

    @field_validator("servers")
    @classmethod
    def _unique_names(cls, servers: list[McpServer]) -> list[McpServer]:
        names = [server.name for server in servers]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"server names must be unique: {', '.join(twice)} appear twice")
        return servers

    def enabled(self) -> list[McpServer]:
        return [server for server in self.servers if server.enabled]
