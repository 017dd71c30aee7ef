"""Who says yes to a call that needs a person: the GUI's confirmation policy, for MCP clients.

A call the registry would refuse for confirmation (a physical or shell action, files outside the
workspace) is allowed when the server was started with `--approve`, or when the person at the
Workbench desktop app approves it there; with neither, it is refused, saying how to allow it.
The refused call still goes through the registry unconfirmed, so the store records the refusal.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from workbench.core.approvals import ApprovalRequest, ask_desktop
from workbench.core.paths import AppPaths
from workbench.core.tool_errors import ToolError

log = logging.getLogger(__name__)

NO_APPROVER = (
    "No one could approve it: this MCP server was started without --approve and no Workbench "
    "desktop app is open to ask. To allow such calls, either restart the server with "
    "`workbench --headless mcp --approve` (every call that needs a person is then allowed), or "
    "open the Workbench desktop app on the same data folder and approve or deny each call there."
)


@dataclass(frozen=True)
class Decision:
    confirmed: bool
    refusal: str = ""  # why not, and how to allow it (empty when confirmed or not asked)


async def decide(
    paths: AppPaths,
    needed: ToolError | None,
    *,
    approve: bool,
    caller: str,
    tool: str,
    arguments: dict[str, Any],
) -> Decision:
    """Whether to call confirmed. `needed`: the registry's `confirmation_needed` (None: nothing
    to ask; with `approve` the call is confirmed anyway, which covers files a tool reaches
    without declaring them)."""
    if needed is None or approve:
        return Decision(confirmed=approve)
    request = ApprovalRequest(caller=caller, tool=tool, arguments=arguments, message=needed.message)
    try:
        answer = await ask_desktop(paths, request)
    except Exception:  # a broken approval channel must refuse, never approve
        log.exception("asking the desktop app to approve %s failed", tool)
        answer = None
    if answer is None:
        return Decision(confirmed=False, refusal=NO_APPROVER)
    if answer.approved:
        return Decision(confirmed=True)
    reason = answer.reason or "denied in the desktop app"
    return Decision(
        confirmed=False, refusal=f"Not approved in the Workbench desktop app: {reason}."
    )
