"""What the chat controller draws on: the protocols the chat panel implements.

The controller decides what to show and when; a surface only renders it and reports the
engineer's answers back (through the controller's methods named in each docstring). Everything
here is Qt-free, so the controller can run against any surface, a widget or a test's recorder.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from workbench.agents.accounting import Conversation
from workbench.agents.events import AgentEvent, InterruptRequested
from workbench.core.tools import ToolOutcome

if TYPE_CHECKING:  # the runtime (LangChain, LangGraph) is imported when the first message is sent
    from workbench.agents.runtime import RunResult

# a note's tone: which of the chat's colours (style.COLOURS) it is written in
Tone = Literal["note", "ok", "declined", "workbench"]


class Spawn(Protocol):
    """Starts a coroutine on the surface's event loop and returns at once (`start_task`)."""

    def __call__(
        self, coroutine: Coroutine[Any, Any, Any], *, name: str = ""
    ) -> asyncio.Task[Any]: ...


class StreamedMessage(Protocol):
    """A message bubble whose text may still be arriving token by token."""

    agent: str

    def append(self, text: str) -> None: ...

    def text(self) -> str: ...

    def flush(self) -> None:
        """Show what has arrived so far."""

    def mark_final(self, text: str | None = None) -> None:
        """The answer is complete (optionally: replace its text)."""

    def discard(self, reason: str) -> None:
        """The text is not part of the conversation (malformed reply, interrupted call)."""


class ToolCardView(Protocol):
    """A tool call as shown in the chat: running until `finish`."""

    status: str  # "running", "ok", "error", "declined", "cancelled" (by the person)

    def finish(
        self,
        ok: bool,
        *,
        duration_s: float | None = None,
        summary: str = "",
        error: str = "",
        error_kind: str = "",
    ) -> None:
        """`summary` is what a person reads; `error` the failure as the model read it (kept
        one click away)."""

    def set_details(self, text: str) -> None: ...

    def alive(self) -> bool:
        """False once the card is gone (conversation cleared, panel closed)."""


@runtime_checkable
class CitingCard(Protocol):
    """A card that can link to the places its result cites (the chat's ToolCard does)."""

    def cite(self, result: Any) -> None:
        """Show links to the places `result` cites (a document search's passages)."""


def cite(card: ToolCardView, result: Any) -> None:
    """Links from `card` to what `result` cites, when the card can show them."""
    if isinstance(card, CitingCard):
        card.cite(result)


class ChatSurface(Protocol):
    """The chat as the engineer sees it."""

    def alive(self) -> bool:
        """False once the surface is gone: late results of background work are dropped."""

    def deliver_event(self, event: AgentEvent) -> None:
        """Runs call this from any thread; the surface hands the event to the controller's
        `on_agent_event` on its own thread."""

    # -- items of the transcript ----------------------------------------------------------------
    def note(self, text: str, tone: Tone = "note", detail: str = "") -> None:
        """A small line; `detail` (what the model was told) is shown on demand (hover)."""

    def user_message(self, text: str) -> None: ...

    def error(
        self, text: str, action: str = "", on_action: Callable[[], None] | None = None
    ) -> None:
        """What went wrong; with a button `action` calling `on_action` when there is one."""

    def message(self, who: str, text: str = "", *, agent: str = "", role: str) -> StreamedMessage:
        """A bubble from the agent (role "workbench" or "specialist"), to stream into."""

    def tool_card(self, tool: str, arguments: Any, agent: str) -> ToolCardView: ...

    def clear(self) -> None:
        """Empty the transcript (the conversation itself is kept)."""

    # -- status ---------------------------------------------------------------------------------
    def show_tokens(self, tokens_in: int, tokens_out: int) -> None: ...

    def show_busy(self, busy: bool) -> None: ...

    def show_model(self, spec: str, problem: str = "", *, loading: bool = False) -> None:
        """The model in use (or, `loading`, the one being read on a worker thread)."""

    def show_conversations(
        self, conversations: Sequence[Conversation], current: str | None
    ) -> None: ...

    def enable_conversations(self, enabled: bool) -> None: ...

    # -- questions for the engineer -------------------------------------------------------------
    def ask_question(self, question: str, agent: str) -> None:
        """Show the agent's question; the answer goes to `ChatController.answer_question`."""

    def fill_answer(self, text: str) -> None:
        """The engineer typed the answer in the input line instead: put it in the question."""

    def ask_approval(self, event: InterruptRequested) -> None:
        """Ask (without blocking) whether the agent may run a tool; the answer goes to
        `ChatController.approval_given`."""

    def raise_approval(self) -> None:
        """Bring the open approval question to the front."""

    def confirm_tool(self, name: str, arguments: dict[str, Any], why: str) -> None:
        """Ask (without blocking) before a /tool call; the answer goes to
        `ToolCalls.confirmed`."""

    # -- what the controller reports ------------------------------------------------------------
    def on_run_finished(self, result: RunResult | None) -> None:
        """A run ended: its result, or None when it was stopped."""

    def on_tool_finished(self, outcome: ToolOutcome) -> None: ...

    def on_conversation_loaded(self, thread_id: str) -> None: ...

    def on_conversations_listed(self, thread_ids: list[str]) -> None: ...

    def on_exported(self, path: str) -> None: ...
