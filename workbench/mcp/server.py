"""`build_server`: an MCP server over the one tool registry.

Tools are listed from the registry (`listing`); a call goes through `ToolRegistry.acall` with the
caller `mcp:<client name>` (from the client's `clientInfo`), so the workspace store records it
like any other caller's. Calls that need a person follow `policy`. A result comes back as
structured content (the result model's dict) and as JSON text; a failure as `isError` with its
message and what to do, in words. Job progress goes to clients that asked for it, and a request
the client cancels cancels the jobs its call started.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from workbench import __version__
from workbench.core.context import AppContext
from workbench.core.events import CURRENT_TOOL_CALL
from workbench.core.tools import ToolOutcome
from workbench.mcp.listing import NOT_SERVED, mcp_tool, served_tools
from workbench.mcp.policy import Decision, decide
from workbench.mcp.progress import CallJobs, new_marker

INSTRUCTIONS = (
    "Workbench's engineering tools: topology optimisation, export, slicing and printing, "
    "simulation, SLURM jobs, documents. Every call is recorded in the user's workspace. Designs "
    "become candidates in the engineering ledger: check them with list_candidates and "
    "candidate_readiness, and submit one explicitly with submit_candidate once it is ready. "
    "Tools that act on the physical world (printers, the shell, cluster jobs) or on files "
    "outside the workspace need a person's approval."
)
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._@+-]+")
MAX_NAME = 64
# calls whose client cancelled the request: they finish (and are recorded) on their own
_cancelled_calls: set[asyncio.Task[ToolOutcome]] = set()


def build_server(context: AppContext, *, client_label: str, approve: bool) -> Server[Any]:
    """The MCP server; `client_label` says how clients reach it ("stdio", "http"), in the
    approval prompt and as the client name of a client that gives none."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(t) for t in served_tools(context.registry)])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        name, arguments = params.name, dict(params.arguments or {})
        if name in NOT_SERVED:
            return _error_result(f"{name} is not served over MCP: ask your user directly.")
        client = client_name(ctx, client_label)
        decision = await decide(
            context.paths,
            context.registry.confirmation_needed(name, arguments),
            approve=approve,
            caller=f"MCP client '{client}' ({client_label})",
            tool=name,
            arguments=arguments,
        )
        outcome = await _run_with_progress(ctx, context, name, arguments, client, decision)
        return _result(outcome, decision)

    return Server(
        "workbench",
        version=__version__,
        title="Workbench",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def client_name(ctx: ServerRequestContext[Any], fallback: str) -> str:
    """The client's name from its `clientInfo` (made safe to record), else `fallback`."""
    params = ctx.session.client_params
    given = params.client_info.name if params is not None else ""
    cleaned = _UNSAFE_NAME.sub("-", given).strip("-")[:MAX_NAME]
    return cleaned or fallback


async def _run_with_progress(
    ctx: ServerRequestContext[Any],
    context: AppContext,
    name: str,
    arguments: dict[str, Any],
    client: str,
    decision: Decision,
) -> ToolOutcome:
    """The registry call, with its jobs' progress sent to the client; if the client cancels the
    request, the call's jobs are cancelled and the call finishes (recorded) on its own."""
    marker = new_marker()
    token = CURRENT_TOOL_CALL.set(marker)
    try:  # the task copies the context now: the jobs the tool starts carry the marker
        call = asyncio.ensure_future(
            context.registry.acall(
                name, arguments, caller=f"mcp:{client}", confirmed=decision.confirmed
            )
        )
    finally:
        CURRENT_TOOL_CALL.reset(token)
    with CallJobs(context.bus, marker) as jobs:
        forwarding = asyncio.ensure_future(jobs.forward(ctx.session.report_progress))
        try:
            return await asyncio.shield(call)
        except anyio.get_cancelled_exc_class():
            jobs.cancel_jobs(context.jobs)
            _cancelled_calls.add(call)
            call.add_done_callback(_cancelled_calls.discard)
            raise
        finally:
            forwarding.cancel()


def _result(outcome: ToolOutcome, decision: Decision) -> types.CallToolResult:
    meta: dict[str, Any] = {"workbench/call_id": outcome.call_id}
    if outcome.ok:
        result = outcome.result or {}
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(result, ensure_ascii=False))],
            structured_content=result,
            meta=meta,
        )
    error = outcome.error
    if error is None:  # the registry always names the error of a failed call
        return _error_result(f"{outcome.tool} failed without saying why.", meta)
    meta["workbench/error_kind"] = error.kind
    if error.kind == "confirmation_required":
        # the registry's hint ("call again with confirmation") cannot be followed over MCP
        error = error.model_copy(update={"hint": decision.refusal or _RESTART_WITH_APPROVE})
    return _error_result(error.explain(), meta)


_RESTART_WITH_APPROVE = (
    "It needs a person's approval: restart the server with --approve, or open the Workbench "
    "desktop app to approve each call."
)


def _error_result(text: str, meta: dict[str, Any] | None = None) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True, meta=meta)
