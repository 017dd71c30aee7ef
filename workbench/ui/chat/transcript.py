"""The conversation as the chat shows it: what a run reports, turned into items on a surface.

Streamed tokens go into one bubble per speaking agent; each tool call gets a card, finished when
its result arrives; a malformed or interrupted reply is marked as not kept; the final answer is
shown as such. Token counts add up per conversation. Stored transcripts (a conversation opened
again) are shown with the same items. Tokens arrive many per second: each step stays cheap.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from workbench.agents.events import (
    AgentError,
    AgentEvent,
    FinalAnswer,
    LoopStopped,
    Malformed,
    ModelCalled,
    Routed,
    RunFinished,
    Token,
    ToolFinished,
    ToolStarted,
)
from workbench.ui.chat.job_links import follow_jobs
from workbench.ui.chat.summaries import summarize, summarize_text
from workbench.ui.chat.surface import ChatSurface, StreamedMessage, ToolCardView, cite
from workbench.ui.chat.wording import USER_CANCELLED, failure_headline, malformed_note

SUPERVISOR = "supervisor"
RETRY_KINDS = ("model_unreachable", "model_error", "internal")


class Transcript:
    """Renders one conversation's runs on `surface`; `retry` reruns the step that failed."""

    def __init__(self, surface: ChatSurface, retry: Callable[[], None]) -> None:
        self.surface = surface
        self.retry = retry
        self._bubble: StreamedMessage | None = None  # receiving tokens now
        self._last_call_bubble: StreamedMessage | None = None  # text of the last model call
        self._cards: dict[str, ToolCardView] = {}  # running tool calls by call id
        self.tokens_before = (0, 0)  # conversation tokens (in, out) before the current run
        self._tokens_run = (0, 0)

    # -- lifecycle ------------------------------------------------------------------------------
    def start_run(self) -> None:
        self._bubble = self._last_call_bubble = None
        self._tokens_run = (0, 0)

    def forget_bubbles(self) -> None:
        """The items were cleared from the view; the next tokens start a new bubble."""
        self._bubble = self._last_call_bubble = None

    def reset(self) -> None:
        """Another (or a new) conversation: nothing of the previous one is carried over."""
        self.forget_bubbles()
        self._cards.clear()
        self.tokens_before = self._tokens_run = (0, 0)
        self.show_tokens()

    def flush(self) -> None:
        if self._bubble is not None:
            self._bubble.flush()

    def close_bubble(self) -> StreamedMessage | None:
        bubble, self._bubble = self._bubble, None
        if bubble is not None:
            bubble.flush()
        return bubble

    # -- a run's events -------------------------------------------------------------------------
    def render(self, event: AgentEvent) -> None:
        """Everything but interrupts, which the controller handles (they change its state)."""
        if isinstance(event, Token):
            self._on_token(event)
        elif isinstance(event, ModelCalled):
            self._on_model_called(event)
        elif isinstance(event, ToolStarted):
            self.tool_card(event.tool_call_id, event.tool, event.arguments, event.agent)
        elif isinstance(event, ToolFinished):
            self._on_tool_finished(event)
        elif isinstance(event, Routed):
            self.close_bubble()
            self.surface.note(f"→ {event.specialist}: {event.task}")
        elif isinstance(event, Malformed):
            self._on_malformed(event)
        elif isinstance(event, LoopStopped):
            self.surface.note(
                f"The supervisor kept handing the task to {event.specialist} "
                f"({event.routes} times in a row); the run was stopped."
            )
        elif isinstance(event, FinalAnswer):
            self._on_final(event)
        elif isinstance(event, AgentError):
            self._on_error(event)
        elif isinstance(event, RunFinished):
            self._on_run_finished(event)

    def _on_token(self, event: Token) -> None:
        bubble = self._bubble
        if bubble is None or bubble.agent != event.agent:
            self.close_bubble()
            specialist = event.agent not in (SUPERVISOR, "")
            who = event.agent if specialist else "Workbench"
            role = "specialist" if specialist else "workbench"
            bubble = self.surface.message(who, agent=event.agent, role=role)
            self._bubble = bubble
        bubble.append(event.text)

    def _on_model_called(self, event: ModelCalled) -> None:
        self._last_call_bubble = self.close_bubble()
        tokens_in, tokens_out = self._tokens_run
        self._tokens_run = (tokens_in + event.input_tokens, tokens_out + event.output_tokens)
        self.show_tokens()

    def _on_malformed(self, event: Malformed) -> None:
        bubble = self._last_call_bubble
        if bubble is not None and bubble.agent == event.agent:
            bubble.discard("malformed reply, not kept")
        self._last_call_bubble = None
        self.surface.note(
            malformed_note(event.problem, event.retries_left),
            tone="declined",
            detail=f"{event.problem}: {event.detail}",
        )

    def _on_final(self, event: FinalAnswer) -> None:
        self.close_bubble()
        bubble = self._last_call_bubble
        same = bubble is not None and bubble.text().strip() == event.text.strip()
        if bubble is not None and same and bubble.agent == event.agent:
            bubble.mark_final()
        else:  # not streamed (a guard's message, or a backend that does not stream)
            final = self.surface.message("Workbench", agent=event.agent, role="workbench")
            final.mark_final(event.text)

    def _on_error(self, event: AgentError) -> None:
        partial = self.close_bubble()
        if partial is not None:  # its model call never finished: not in the conversation
            partial.discard("interrupted, not kept")
        stopped = event.kind in ("cancelled", USER_CANCELLED)  # the person's Stop or Cancel
        for card in self._cards.values():
            if card.status == "running" and stopped:  # neutral, not a red error (issue 29)
                card.finish(
                    False,
                    summary="Cancelled",
                    error="stopped by you before it finished",
                    error_kind=USER_CANCELLED,
                )
            elif card.status == "running":
                card.finish(False, error="did not finish: the run ended")
        if event.kind == "cancelled":
            self.surface.note("Stopped. The conversation is kept; send a message to go on.")
            return
        if event.kind == USER_CANCELLED:  # the person's own decision: not an error
            self.surface.note(event.message, tone="declined")
            return
        action = "Retry" if event.kind in RETRY_KINDS else ""
        self.surface.error(event.message, action, self.retry)

    def _on_run_finished(self, event: RunFinished) -> None:
        totals = event.totals or {}
        if totals:  # the recorded totals replace the live sum
            self._tokens_run = (
                int(totals.get("input_tokens", 0)),
                int(totals.get("output_tokens", 0)),
            )
        tokens_in, tokens_out = self.tokens_before
        run_in, run_out = self._tokens_run
        self.tokens_before, self._tokens_run = (tokens_in + run_in, tokens_out + run_out), (0, 0)
        self.show_tokens()

    def show_tokens(self) -> None:
        self.surface.show_tokens(
            self.tokens_before[0] + self._tokens_run[0],
            self.tokens_before[1] + self._tokens_run[1],
        )

    # -- tool cards -----------------------------------------------------------------------------
    def tool_card(self, call_id: str, tool: str, arguments: Any, agent: str = "") -> ToolCardView:
        """A running card; with a call id it is finished by the run's ToolFinished event."""
        self.close_bubble()
        card = self.surface.tool_card(tool, arguments, agent)
        if call_id:
            self._cards[call_id] = card
            follow_jobs(card, call_id)  # the jobs this call starts show their progress on it
        return card

    def _on_tool_finished(self, event: ToolFinished) -> None:
        card = self._cards.pop(event.tool_call_id, None)
        if card is None:  # refused before it started (malformed call)
            card = self.tool_card("", event.tool, None, event.agent)
        if event.ok:
            summary = summarize(event.result) if event.result is not None else ""
        else:
            summary = failure_headline(event.tool, event.error_kind, event.error)
        card.finish(
            event.ok,
            duration_s=event.duration_s,
            summary=summary,
            error=event.error,
            error_kind=event.error_kind,
        )
        if event.ok and event.result is not None:
            cite(card, event.result)

    # -- stored conversations -------------------------------------------------------------------
    def show_entry(self, entry: dict[str, Any]) -> None:
        """One entry of a stored transcript (`AgentRuntime.transcript`)."""
        role, agent, content = entry.get("role"), entry.get("agent", ""), entry.get("content", "")
        if role == "user":
            self.surface.user_message(str(content))
        elif role == "handoff":
            self.surface.note(f"→ {entry.get('specialist', '')}: {content}")
        elif role == "tool":
            self._show_stored_call(entry)
        elif role == "report" and entry.get("cancelled"):
            self.surface.note(str(content), tone="declined")
        elif role == "report" or (role == "assistant" and not entry.get("final")):
            if str(content).strip():
                self.surface.message(agent, str(content), agent=agent, role="specialist")
        elif role == "assistant":
            final = self.surface.message("Workbench", agent=agent, role="workbench")
            final.mark_final(str(content))

    def _show_stored_call(self, entry: dict[str, Any]) -> None:
        tool, content = str(entry.get("tool", "")), str(entry.get("content", ""))
        card = self.tool_card("", tool, entry.get("arguments"), str(entry.get("agent", "")))
        kind = str(entry.get("error_kind", ""))
        if entry.get("ok"):
            card.finish(True, summary=summarize_text(content))
            cite(card, _parsed(content))
        else:
            summary = failure_headline(tool, kind, content)
            card.finish(False, summary=summary, error=content, error_kind=kind)

    def count_stored_tokens(self, calls: list[dict[str, Any]]) -> None:
        """The tokens of a stored conversation's earlier model calls (`AgentLog.calls`)."""
        self.tokens_before = (
            sum(c["input_tokens"] for c in calls),
            sum(c["output_tokens"] for c in calls),
        )
        self.show_tokens()


def _parsed(content: str) -> Any:
    """A stored tool answer: its JSON when it is JSON, else the text."""
    try:
        return json.loads(content)
    except ValueError:
        return content
