"""`workbench --headless mcp`: serve the tool registry to MCP clients over stdio or HTTP.

stdio: stdout carries nothing but the protocol (the SDK diverts stray prints to stderr; messages
go to stderr). HTTP: the URL and how to get the token are printed, then it serves until Ctrl+C
or SIGTERM. Both serve the user's workspace (WORKBENCH_HOME moves it), like `tool`.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import signal
import sys

from mcp.server.stdio import stdio_server

from workbench.core.context import AppContext
from workbench.core.secrets import SecretUnavailable
from workbench.mcp.http import McpHttpServer
from workbench.mcp.malformed import AnswerMalformed
from workbench.mcp.server import build_server
from workbench.mcp.token import TOKEN_BYTES, mcp_token, token_location


def run_mcp(context: AppContext, args: argparse.Namespace) -> int:
    if args.show_token and not args.http:
        return _show_token()
    try:
        if args.http:
            return asyncio.run(_serve_http(context, args))
        return asyncio.run(_serve_stdio(context, approve=args.approve))
    except KeyboardInterrupt:
        return 0


def _show_token() -> int:
    try:
        print(mcp_token(create=True))
    except SecretUnavailable as problem:
        print(f"No MCP token: {problem}", file=sys.stderr)
        return 2
    return 0


def _approval_policy(approve: bool) -> str:
    needing = "Calls that need a person (physical actions, the shell, files outside the workspace)"
    if approve:
        return f"{needing} are allowed: --approve."
    return (
        f"{needing} are asked in the Workbench desktop app, and refused when it is not open "
        "(--approve allows them all)."
    )


async def _serve_stdio(context: AppContext, *, approve: bool) -> int:
    server = build_server(context, client_label="stdio", approve=approve)
    _stop_on_signals(asyncio.current_task())
    print(
        f"Workbench MCP server on stdio, workspace {context.store.folder}. "
        + _approval_policy(approve),
        file=sys.stderr,
        flush=True,
    )
    try:
        async with stdio_server() as (read_stream, write_stream):
            lines = AnswerMalformed(read_stream, write_stream)  # JSON-RPC errors, not silence
            await server.run(lines, write_stream, server.create_initialization_options())
    except asyncio.CancelledError:  # SIGTERM
        pass
    return 0


async def _serve_http(context: AppContext, args: argparse.Namespace) -> int:
    token, kept = _http_token(show=args.show_token)
    if not token:
        return 2
    server = McpHttpServer(
        context, host=args.host, port=args.port, token=token, approve=args.approve
    )
    try:
        url = await server.start()
    except OSError as error:
        print(error.strerror or error, file=sys.stderr)
        return 1
    lines = [f"Serving Workbench's tools over MCP at {url}"]
    if args.show_token:
        lines.append(f"Bearer token: {token}")
    if kept:
        lines.append(
            f"The bearer token is kept in {token_location()}; "
            "`workbench --headless mcp --show-token` prints it."
        )
    else:
        lines.append("No keyring: this token is for this run only.")
    lines += [_approval_policy(args.approve), "Serving until Ctrl+C (SIGINT) or SIGTERM."]
    print("\n".join(lines), flush=True)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stopping.set)
    try:
        await stopping.wait()
    finally:
        await server.stop()
    print("Stopped.", flush=True)
    return 0


def _http_token(*, show: bool) -> tuple[str, bool]:
    """(token, kept in the keyring). Without a keyring a token for this run only, if it is
    shown; else none ("" with the reason on stderr): nobody could connect."""
    try:
        return mcp_token(create=True), True
    except SecretUnavailable as problem:
        if not show:
            print(
                f"No keyring to keep the MCP token in: {problem} Or start with --show-token to "
                "use a token for this run only.",
                file=sys.stderr,
            )
            return "", False
    return secrets.token_urlsafe(TOKEN_BYTES), False


def _stop_on_signals(task: asyncio.Task[object] | None) -> None:
    if task is None:
        return
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
