"""The `mcp` command's arguments: argparse only, so building the CLI's parser stays cheap (the
MCP SDK and uvicorn are imported when the command runs)."""

from __future__ import annotations

import argparse

from workbench.mcp.loopback import loopback_host


def add_mcp_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Serve Workbench's tools to MCP clients (Claude Code, Cursor, ...) on the user's "
        "workspace: over stdio for a client that starts this command, or over HTTP on a loopback "
        "address with a bearer token from the keyring. Every call is recorded in the workspace."
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve over streamable HTTP on a loopback address with a bearer token (default: "
        "stdio, for a client that starts this command itself)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        type=loopback_host,
        help="loopback address: 127.0.0.1 (default), ::1 or localhost (--http)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=8765,
        metavar="N",
        help="port (--http; default 8765, 0 picks a free one)",
    )
    parser.add_argument(
        "--approve",
        action="store_true",
        help="allow every call that needs a person (physical actions, the shell, files outside "
        "the workspace); without it the desktop app asks, or such calls are refused",
    )
    parser.add_argument(
        "--show-token",
        action="store_true",
        help="print the HTTP bearer token (alone: print it and exit)",
    )
