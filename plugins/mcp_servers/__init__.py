"""External MCP servers as specialists: each server configured in the settings (a program
speaking MCP over stdio, or a streamable HTTP URL) becomes a specialist `mcp_<name>` with the
server's tools, named `<name>__<tool>` in the registry. Tools the user marks as acting on the
world ask a person before each call, like every physical tool.

config.py          the settings ([plugins.mcp_servers]): servers, world tools; keyring entries
client.py          one session per operation with the official `mcp` SDK client: list, call;
                   failures in words (which server, what failed, what to do)
sessions.py        the kept sessions the specialists' calls use (one per server and workspace)
remote_tools.py    a server's tools as registry tools (its schema passed through and checked)
prompt.py          a server's specialist: description for the supervisor, prompt
specialists.py     the hook the agent runtime awaits before each run (reach, list, register)
doctor_checks.py   every server really reached, handshaken and listed
views/             the MCP servers view (add, remove, enable, mark world tools, Test)
bench/             the `mcp-roundtrip` suite: a call through MCP against the same call direct
"""

from workbench.core.plugins import Plugin, ViewSpec
from workbench_plugins.mcp_servers.config import McpServersSettings

plugin = Plugin(
    name="mcp_servers",
    title="MCP servers",
    description="Use the tools of external MCP servers (stdio or HTTP), one specialist each.",
    specialists="workbench_plugins.mcp_servers.specialists:specialists",
    settings=McpServersSettings,
    checks="workbench_plugins.mcp_servers.doctor_checks:checks",
    suites="workbench_plugins.mcp_servers.bench:suites",
    views=(
        ViewSpec(
            name="servers",
            title="MCP servers",
            factory="workbench_plugins.mcp_servers.views:servers_view",
        ),
    ),
)
