"""The engineer's own tool calls from the chat: /tools, /describe NAME and /tool NAME {json}.

They go through the one registry, recorded with caller "gui:chat", and show as tool cards with
the whole result. A physical action or a file outside the workspace is asked about first
(without blocking: the surface's `confirm_tool` answers through `confirmed`). Calls made by views
or scripts show up as a note.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from workbench.core.context import AppContext
from workbench.core.events import CURRENT_TOOL_CALL, ToolCalled
from workbench.core.tools import ToolOutcome
from workbench.ui.chat.commands import (
    CommandError,
    parse_tool_call,
    tool_description,
    tool_listing,
    unknown_tool,
)
from workbench.ui.chat.job_links import follow_jobs
from workbench.ui.chat.summaries import summarize
from workbench.ui.chat.surface import ChatSurface, Spawn, ToolCardView, cite
from workbench.ui.chat.transcript import Transcript
from workbench.ui.chat.wording import failure_headline

CALLER = "gui:chat"


class ToolCalls:
    def __init__(
        self, context: AppContext, surface: ChatSurface, transcript: Transcript, spawn: Spawn
    ) -> None:
        self.context = context
        self.surface = surface
        self.transcript = transcript
        self.spawn = spawn

    def list_tools(self) -> None:
        if not self.context.registry.names():
            self.surface.note("No tools are loaded: no plugin contributed any (see the notices).")
            return
        self.surface.note(tool_listing(self.context.registry), tone="workbench")

    def describe(self, name: str) -> None:
        tool = self.context.registry.get(name)
        if tool is None:
            self.surface.error(unknown_tool(self.context.registry, name))
            return
        self.surface.note(tool_description(tool), tone="workbench")

    def command(self, rest: str) -> None:
        """`/tool NAME {json}` (`rest` is what follows /tool)."""
        try:
            name, arguments = parse_tool_call(rest)
        except CommandError as error:
            self.surface.error(str(error))
            return
        # a physical action or files outside the workspace: the person sees what and says yes
        needed = self.context.registry.confirmation_needed(name, arguments)
        if needed is not None:
            self.surface.confirm_tool(name, arguments, needed.message)
        else:
            self.call(name, arguments)

    def confirmed(self, name: str, arguments: dict[str, Any], approved: bool) -> None:
        """The engineer's answer to `ChatSurface.confirm_tool`."""
        if approved:
            self.call(name, arguments, confirmed=True)
        else:
            self.surface.note(f"{name} was not run: you declined.")

    def call(self, name: str, arguments: dict[str, Any], *, confirmed: bool = False) -> None:
        card = self.transcript.tool_card("", name, arguments, "you")
        call_id = f"chat:{uuid.uuid4().hex[:12]}"  # names the call's jobs, as the agent's id does
        follow_jobs(card, call_id, self.context.bus)
        self.spawn(self._run(card, name, arguments, confirmed, call_id), name=f"chat:{name}")

    async def _run(
        self,
        card: ToolCardView,
        name: str,
        arguments: dict[str, Any],
        confirmed: bool,
        call_id: str,
    ) -> None:
        # the jobs the tool starts (in a thread that copies this context) carry the call's id
        token = CURRENT_TOOL_CALL.set(call_id)
        try:
            outcome = await self.context.registry.acall(
                name, arguments, caller=CALLER, confirmed=confirmed
            )
        finally:
            CURRENT_TOOL_CALL.reset(token)
        if self.surface.alive() and card.alive():  # closed meanwhile?
            show_outcome(card, outcome)
            self.surface.on_tool_finished(outcome)
            error = outcome.error
            if error is not None and error.kind == "confirmation_required" and not confirmed:
                # found only while running (a file the tool did not declare): ask now
                self.surface.confirm_tool(name, arguments, error.message)

    def noticed(self, event: ToolCalled) -> None:
        """Any tool call in the app: calls by views or scripts show up too (the agent's own
        calls already have their cards, and so do the chat's)."""
        if event.caller != CALLER and not event.caller.startswith("agent:"):
            state = "ok" if event.ok else "failed"
            self.surface.note(
                f"{event.caller} called {event.tool} ({state}, {event.duration_s:.2f} s)"
            )


def show_outcome(card: ToolCardView, outcome: ToolOutcome) -> None:
    """Finish a /tool call's card: a short summary, the whole result or error under Details."""
    if outcome.ok:
        card.finish(True, duration_s=outcome.duration_s, summary=summarize(outcome.result))
        card.set_details(json.dumps(outcome.result, indent=2, ensure_ascii=False, default=str))
        cite(card, outcome.result)
        return
    error = outcome.error
    explanation = error.explain() if error else "failed without a message"
    kind = error.kind if error else ""
    card.finish(
        False,
        duration_s=outcome.duration_s,
        summary=failure_headline(outcome.tool, kind, explanation, by="you"),
        error=explanation,
        error_kind=kind,
    )
