"""The chat controller without Qt: it runs on a plain asyncio loop and draws on a
`RecordingSurface`, which keeps what a panel would show as plain Python objects.

Everything else is real: the app context with the sample plugin, the tool registry, the agent
runtime over a SCRIPTED model (language models cannot run here), its checkpoints and logs.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from workbench.agents import AgentRuntime, RunResult, ScriptedChatModel
from workbench.agents.accounting import Conversation
from workbench.agents.events import AgentEvent, InterruptRequested
from workbench.core.context import AppContext
from workbench.core.tools import ToolOutcome
from workbench.ui.chat.controller import ChatController
from workbench.ui.chat.wording import card_status


@pytest.fixture(autouse=True)
def gui_loop() -> None:
    """Replaces tests/ui's Qt event loop: these tests start no QApplication."""


@dataclass
class Line:
    """A note, the engineer's own line ("you") or an error, as the surface was asked to show."""

    kind: str  # "note", "you", "error"
    text: str
    tone: str = ""
    detail: str = ""
    action: str = ""
    on_action: Callable[[], None] | None = None


class RecordedMessage:
    """A streamed bubble: what arrived, what was shown, final or discarded."""

    def __init__(self, who: str, text: str, agent: str, role: str) -> None:
        self.who, self.agent, self.role = who, agent, role
        self._parts = [text] if text else []
        self.shown = text
        self.final = False
        self.discarded = ""

    def append(self, text: str) -> None:
        self._parts.append(text)

    def text(self) -> str:
        return "".join(self._parts)

    def flush(self) -> None:
        self.shown = self.text()

    def mark_final(self, text: str | None = None) -> None:
        if text is not None:
            self._parts = [text]
        self.flush()
        self.final = True

    def discard(self, reason: str) -> None:
        self.flush()
        self.discarded = reason


class RecordedCard:
    """A tool card, with the status rule of the chat's ToolCard."""

    def __init__(self, tool: str, arguments: Any, agent: str) -> None:
        self.tool, self.arguments, self.agent = tool, arguments, agent
        self.status = "running"
        self.duration_s: float | None = None
        self.summary = self.error = self.details = ""
        self.present = True

    def finish(
        self,
        ok: bool,
        *,
        duration_s: float | None = None,
        summary: str = "",
        error: str = "",
        error_kind: str = "",
    ) -> None:
        self.status = card_status(ok, error_kind)  # the chat's own rule
        self.duration_s, self.summary, self.error = duration_s, summary, error
        if not ok:
            self.details = error.strip()

    def set_details(self, text: str) -> None:
        self.details = text

    def alive(self) -> bool:
        return self.present


Item = Line | RecordedMessage | RecordedCard


@dataclass
class RecordingSurface:
    """A `ChatSurface` that remembers instead of drawing; it answers as a panel would."""

    controller: ChatController | None = None
    items: list[Item] = field(default_factory=list)
    busy: list[bool] = field(default_factory=list)  # each show_busy call
    tokens: tuple[int, int] = (0, 0)
    model: tuple[str, str] = ("", "")
    conversations: list[str] = field(default_factory=list)
    conversations_enabled: list[bool] = field(default_factory=list)
    questions: list[tuple[str, str]] = field(default_factory=list)
    approvals: list[InterruptRequested] = field(default_factory=list)
    raised: int = 0
    confirmations: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    results: list[RunResult | None] = field(default_factory=list)
    outcomes: list[ToolOutcome] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)
    listed: list[list[str]] = field(default_factory=list)
    exported: list[str] = field(default_factory=list)
    event_threads: set[int] = field(default_factory=set)
    present: bool = True

    def texts(self) -> list[str]:
        """Each item as one string, in order: what a person would read."""
        shown = []
        for item in self.items:
            if isinstance(item, Line):
                shown.append(f"You: {item.text}" if item.kind == "you" else item.text)
            elif isinstance(item, RecordedMessage):
                shown.append(f"{item.who}: {item.text()}")
            else:
                shown.append(f"[{item.status}] {item.tool}")
        return shown

    def of(self, kind: type[Any]) -> list[Any]:
        return [item for item in self.items if isinstance(item, kind)]

    def lines(self, kind: str) -> list[Line]:
        return [item for item in self.of(Line) if item.kind == kind]

    def _controller(self) -> ChatController:
        if self.controller is None:
            raise RuntimeError("the surface has no controller yet")
        return self.controller

    # -- ChatSurface ----------------------------------------------------------------------------
    def alive(self) -> bool:
        return self.present

    def deliver_event(self, event: AgentEvent) -> None:
        self.event_threads.add(threading.get_ident())
        self._controller().on_agent_event(event)

    def note(self, text: str, tone: str = "note", detail: str = "") -> None:
        self.items.append(Line("note", text, tone=tone, detail=detail))

    def user_message(self, text: str) -> None:
        self.items.append(Line("you", text))

    def error(
        self, text: str, action: str = "", on_action: Callable[[], None] | None = None
    ) -> None:
        self.items.append(Line("error", text, action=action, on_action=on_action))

    def message(self, who: str, text: str = "", *, agent: str = "", role: str) -> RecordedMessage:
        bubble = RecordedMessage(who, text, agent, role)
        self.items.append(bubble)
        return bubble

    def tool_card(self, tool: str, arguments: Any, agent: str) -> RecordedCard:
        card = RecordedCard(tool, arguments, agent)
        self.items.append(card)
        return card

    def clear(self) -> None:
        for item in self.of(RecordedCard):
            item.present = False
        self.items.clear()

    def show_tokens(self, tokens_in: int, tokens_out: int) -> None:
        self.tokens = (tokens_in, tokens_out)

    def show_busy(self, busy: bool) -> None:
        self.busy.append(busy)

    def show_model(self, spec: str, problem: str = "", *, loading: bool = False) -> None:
        self.model = (spec, problem)

    def show_conversations(self, conversations: Any, current: str | None) -> None:
        listed: list[Conversation] = list(conversations)
        self.conversations = [c.thread_id for c in listed]

    def enable_conversations(self, enabled: bool) -> None:
        self.conversations_enabled.append(enabled)

    def ask_question(self, question: str, agent: str) -> None:
        self.questions.append((question, agent))

    def fill_answer(self, text: str) -> None:  # as the question card does: it answers
        self._controller().answer_question(text)

    def ask_approval(self, event: InterruptRequested) -> None:
        self.approvals.append(event)

    def raise_approval(self) -> None:
        self.raised += 1

    def confirm_tool(self, name: str, arguments: dict[str, Any], why: str) -> None:
        self.confirmations.append((name, arguments, why))

    def on_run_finished(self, result: RunResult | None) -> None:
        self.results.append(result)

    def on_tool_finished(self, outcome: ToolOutcome) -> None:
        self.outcomes.append(outcome)

    def on_conversation_loaded(self, thread_id: str) -> None:
        self.loaded.append(thread_id)

    def on_conversations_listed(self, thread_ids: list[str]) -> None:
        self.listed.append(thread_ids)

    def on_exported(self, path: str) -> None:
        self.exported.append(path)


class Tasks:
    """The controller's `Spawn`: tasks on the running loop, kept so a test can wait for them."""

    def __init__(self) -> None:
        self.started: list[asyncio.Task[Any]] = []

    def __call__(self, coroutine: Coroutine[Any, Any, Any], *, name: str = "") -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine, name=name or None)
        self.started.append(task)
        return task

    def names(self) -> list[str]:
        return [task.get_name() for task in self.started]

    async def settle(self) -> None:
        """Wait until every task started so far, and those they started, has finished."""
        while pending := [task for task in self.started if not task.done()]:
            await asyncio.gather(*pending, return_exceptions=True)
        for task in self.started:  # a task that failed is a failed test
            error = None if task.cancelled() else task.exception()
            if error is not None:
                raise error


@dataclass
class Chat:
    controller: ChatController
    surface: RecordingSurface
    tasks: Tasks

    async def send(self, text: str) -> RunResult | None:
        """Type a line, then wait for everything it started (a run: its result)."""
        runs = len(self.surface.results)
        self.controller.handle(text)
        await self.tasks.settle()
        return self.surface.results[-1] if len(self.surface.results) > runs else None


ChatFactory = Callable[..., Chat]


@pytest.fixture
def app(sample_plugins: Path, context: AppContext) -> AppContext:
    # only the sample specialist routes, whatever other plugins this checkout has installed
    context.plugins.plugins = {"sample": context.plugins.plugins["sample"]}
    return context


@pytest.fixture
def make_chat(app: AppContext) -> Iterator[ChatFactory]:
    """make_chat(replies, model_class=...) inside a running loop: a started controller on a
    scripted runtime; make_chat(None) uses the settings' model. Closed afterwards."""
    chats: list[Chat] = []

    def make(
        replies: list[dict[str, Any]] | None,
        model_class: type[ScriptedChatModel] = ScriptedChatModel,
    ) -> Chat:
        runtime = None
        if replies is not None:
            runtime = AgentRuntime(app, model_class(replies=replies), model_name="scripted:test")
        surface = RecordingSurface()
        tasks = Tasks()
        controller = ChatController(app, surface, spawn=tasks, runtime=runtime)
        surface.controller = controller
        controller.start()
        chat = Chat(controller, surface, tasks)
        chats.append(chat)
        return chat

    yield make
    for chat in chats:
        chat.controller.models.keeper.shutdown()


def play(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run a test's scenario on a fresh asyncio loop (no Qt anywhere)."""
    asyncio.run(scenario())
