"""Workbench's tool registry served over MCP (`workbench --headless mcp`), for other agents.

`server.build_server` makes an MCP server whose tools are the registry's: every call goes through
`ToolRegistry.acall`, so it is recorded in the workspace store like a GUI or agent call, and tools
that need a person's confirmation follow the GUI's policy (`policy`). `http.McpHttpServer` serves
it over streamable HTTP on a loopback address with a bearer token (`token`); `command` is the CLI,
whose stdio transport answers malformed lines with JSON-RPC errors (`malformed`).
Only `workbench.core` is imported here (an import-linter contract): no GUI, agents or plugins.
"""
