"""The chat panel: the widgets of the chat, drawn on by its `ChatController`.

The panel renders what the controller decides (it is the controller's `ChatSurface`) and forwards
what the engineer does: a line typed, Stop, a conversation picked, a model chosen, a question
answered, a dialog's yes or no. Background work runs as coroutines on the GUI's qasync loop
(`start_task`): the window never waits, and run events reach the controller on the GUI thread.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.agents.accounting import Conversation
from workbench.agents.events import AgentEvent, InterruptRequested
from workbench.core.context import AppContext
from workbench.core.events import ToolCalled
from workbench.core.plugins import ViewRequested, ViewSpec, view_showing
from workbench.core.tools import ToolOutcome
from workbench.ui.async_loop import start_task
from workbench.ui.bridge import gui_deliver, subscribe_in_gui
from workbench.ui.chat.cards import ErrorCard, MessageBubble, NoteLine, QuestionCard, ToolCard
from workbench.ui.chat.chat_view import ChatView
from workbench.ui.chat.commands import completions
from workbench.ui.chat.controller import ChatController
from workbench.ui.chat.conversation_bar import ConversationBar
from workbench.ui.chat.dialogs import agent_tool_dialog, tool_command_dialog
from workbench.ui.chat.input_line import ChatInput
from workbench.ui.chat.job_links import StartedJobs
from workbench.ui.chat.model_picker import ModelPicker
from workbench.ui.chat.style import COLOURS
from workbench.ui.chat.surface import Tone
from workbench.ui.startup.interactive import FirstPaint

if TYPE_CHECKING:  # the runtime (LangChain, LangGraph) is imported off the GUI thread, when needed
    from workbench.agents.runtime import AgentRuntime, RunResult


def view_for_tool(context: AppContext, tool: str) -> ViewSpec | None:
    """The view that shows `tool`'s results (its cards link there), if any."""
    return view_showing(context.plugins, tool, context.registry.owner(tool))


CITING_TOOL = "search_documents"  # citations open the view that shows its results
# The settings' model is built on a worker thread this long after the chat first painted (or,
# never shown, after the fallback): the runtime's imports (LangChain, LangGraph, about a second of
# CPU) then neither delay the window's first paint nor wait for the first message.
RUNTIME_AFTER_PAINT_S = 0.2
RUNTIME_FALLBACK_S = 3.0
PAINT_POLL_S = 0.05


async def after_first_paint(painted: asyncio.Event) -> None:
    """Until a moment after the chat's first paint (or the fallback, if it is never shown)."""
    waited = 0.0
    while not painted.is_set() and waited < RUNTIME_FALLBACK_S:
        await asyncio.sleep(PAINT_POLL_S)  # polled: no task of its own left behind
        waited += PAINT_POLL_S
    await asyncio.sleep(RUNTIME_AFTER_PAINT_S)


class ChatPanel(QWidget):
    tool_finished = Signal(object)  # ToolOutcome of a /tool command, once shown
    run_finished = Signal(object)  # RunResult, or None when the run was stopped
    conversation_loaded = Signal(str)  # thread id, once its transcript is shown
    conversations_listed = Signal(list)  # thread ids, newest first
    exported = Signal(str)  # path written

    def __init__(
        self,
        context: AppContext,
        parent: QWidget | None = None,
        *,
        runtime: AgentRuntime | None = None,
    ) -> None:
        """`runtime`: talk through it (tests: a scripted model), else the settings' model."""
        super().__init__(parent)
        self.context = context
        self._painted = asyncio.Event()  # set at the first paint
        self.controller = ChatController(
            context,
            self,
            spawn=start_task,
            runtime=runtime,
            # not a method of the panel: the controller must not keep the widget alive
            before_model=functools.partial(after_first_paint, self._painted),
        )
        self._gui_thread = threading.get_ident()
        self._question: QuestionCard | None = None
        self._approval_box: QMessageBox | None = None
        self._confirmations: list[QMessageBox] = []  # /tool confirmations
        self._build_widgets()
        self._lay_out()
        subscribe_in_gui(context.bus, ToolCalled, self.controller.tools.noticed, self)
        self.started_jobs = StartedJobs(context.bus)  # before any run: see job_links
        self.destroyed.connect(self.started_jobs.close)
        # the keeper, not the panel: it must outlive the panel to close the runtime
        self.destroyed.connect(self.controller.models.keeper.shutdown)
        # a child object watches for the first paint: an override on the panel itself would be
        # called by Qt while the panel is being destroyed, after its Python side is gone
        self._first_paint = FirstPaint(self, self._painted.set)
        self.controller.start()

    def _build_widgets(self) -> None:
        controller = self.controller
        self.conversation_bar = ConversationBar(self)
        self.conversation_bar.chosen.connect(controller.open_conversation)
        self.conversation_bar.new_requested.connect(controller.new_conversation)
        self.conversation_bar.export_requested.connect(controller.export_requested)
        self.view = ChatView(self)
        self.model_picker = ModelPicker(self.context, self)
        self.model_picker.chosen.connect(controller.set_model)
        self.token_label = QLabel()
        self.token_label.setObjectName("chat-tokens")
        self.token_label.setStyleSheet(f"color: {COLOURS['note']};")
        self.input = ChatInput()
        self.input.setObjectName("chat-input")
        self.input.setPlaceholderText(
            "Message the agent (Enter sends, Shift+Enter starts a new line), "
            "or /tool NAME {json}  (/help)"
        )
        self.input.send_requested.connect(self.submit)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("chat-send")
        self.send_button.clicked.connect(self.submit)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("chat-stop")
        self.stop_button.setToolTip("Stop the agent's run (the conversation is kept)")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        self.input.set_completions(completions(self.context.registry.names()))

    def _lay_out(self) -> None:
        # the token count beside the model's name: the status and offer below get the full width
        self.model_picker.button_row.addWidget(self.token_label)
        # the input across the whole width; Send and Stop on their own row below, not beside it
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.conversation_bar)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.model_picker)
        layout.addWidget(self.input)
        layout.addLayout(buttons)

    # -- the controller's state, for the window and tests ---------------------------------------
    @property
    def runtime(self) -> AgentRuntime | None:
        return self.controller.runtime

    @property
    def thread_id(self) -> str | None:
        return self.controller.thread_id

    @property
    def busy(self) -> bool:
        return self.controller.busy

    def transcript_text(self) -> str:
        self.controller.transcript.flush()
        return self.view.plain_text()

    # -- the engineer's actions -----------------------------------------------------------------
    def submit(self) -> None:
        text = self.input.text().strip()
        if not text:
            return
        self.input.remember(text)
        self.input.clear()
        self.controller.handle(text)

    def stop(self) -> None:
        self.controller.stop()

    def _open_view(self, view: str, tool: str) -> None:
        """A card's link: the window (whoever listens on the bus) shows the view."""
        self.context.bus.publish(ViewRequested(source="chat", view=view, tool=tool))

    def _citations_view(self) -> ViewSpec | None:
        return view_for_tool(self.context, CITING_TOOL)

    def open_citation(self, target: str) -> None:
        """A citation's link ("docs/x.pdf#page=7"): the window shows the view at that place."""
        view = self._citations_view()
        if view is None:
            return
        located = ViewRequested(source="chat", view=view.name, tool=CITING_TOOL, target=target)
        self.context.bus.publish(located)

    # -- ChatSurface: what the controller shows -------------------------------------------------
    def alive(self) -> bool:
        return shiboken6.isValid(self)

    def deliver_event(self, event: AgentEvent) -> None:
        self._on_agent_event(event)

    def _on_agent_event(self, event: AgentEvent) -> None:
        if threading.get_ident() != self._gui_thread:  # never expected under qasync; be safe
            gui_deliver(self._on_agent_event, event)
            return
        if shiboken6.isValid(self):
            self.controller.on_agent_event(event)

    def note(self, text: str, tone: Tone = "note", detail: str = "") -> None:
        self.view.add(NoteLine(text, colour=COLOURS[tone], detail=detail))

    def user_message(self, text: str) -> None:
        self.view.add(MessageBubble("You", text, role="you"))

    def error(
        self, text: str, action: str = "", on_action: Callable[[], None] | None = None
    ) -> None:
        card = ErrorCard(text, action)
        if on_action is not None:
            card.action.connect(on_action)
        self.view.add(card)

    def message(self, who: str, text: str = "", *, agent: str = "", role: str) -> MessageBubble:
        cite = self._citations_view() is not None
        bubble = MessageBubble(who, text, agent=agent, role=role, cite=cite)
        bubble.citation_opened.connect(self.open_citation)
        self.view.add(bubble)
        return bubble

    def tool_card(self, tool: str, arguments: Any, agent: str) -> ToolCard:
        view = view_for_tool(self.context, tool)
        card = ToolCard(
            tool,
            arguments,
            agent=agent,
            view_name=view.name if view else "",
            view_title=view.title if view else "",
            cite=self._citations_view() is not None,
            bus=self.context.bus,
            started=self.started_jobs,
        )
        card.open_view_requested.connect(self._open_view)
        card.citation_opened.connect(self.open_citation)
        self.view.add(card)
        return card

    def clear(self) -> None:
        self.view.clear()

    def show_tokens(self, tokens_in: int, tokens_out: int) -> None:
        self.token_label.setText(f"{tokens_in + tokens_out:,} tokens")
        self.token_label.setToolTip(
            f"This conversation: {tokens_in:,} input + {tokens_out:,} output tokens, "
            "as the model backend reported them"
        )

    def show_busy(self, busy: bool) -> None:
        self.stop_button.setEnabled(busy)
        self.conversation_bar.setEnabled(not busy)
        self.model_picker.setEnabled(not busy)  # Send stays: /tool commands work meanwhile

    def show_model(self, spec: str, problem: str = "", *, loading: bool = False) -> None:
        self.model_picker.set_model(spec, problem, loading=loading)

    def show_conversations(
        self, conversations: Sequence[Conversation], current: str | None
    ) -> None:
        self.conversation_bar.set_conversations(conversations, current)

    def enable_conversations(self, enabled: bool) -> None:
        self.conversation_bar.setEnabled(enabled)

    def ask_question(self, question: str, agent: str) -> None:
        card = QuestionCard(question, agent)
        self.view.add(card)
        card.answered.connect(self._question_answered)
        self._question = card
        card.answer.setFocus()

    def _question_answered(self, text: str) -> None:
        self._question = None
        self.controller.answer_question(text)

    def fill_answer(self, text: str) -> None:
        card = self._question
        if card is not None and shiboken6.isValid(card):
            card.submit(text)  # answers through the card: it shows the answer as given

    def ask_approval(self, event: InterruptRequested) -> None:
        box = agent_tool_dialog(self, event)
        self._approval_box = box

        def answered(result: int) -> None:
            self._approval_box = None
            box.deleteLater()
            self.controller.approval_given(event, result == QMessageBox.StandardButton.Yes)

        box.finished.connect(answered)
        box.open()

    def raise_approval(self) -> None:
        if self._approval_box is not None:
            self._approval_box.raise_()

    def confirm_tool(self, name: str, arguments: dict[str, Any], why: str) -> None:
        box = tool_command_dialog(self, name, arguments, why)
        self._confirmations.append(box)

        def answered(result: int) -> None:
            self._confirmations.remove(box)
            box.deleteLater()
            approved = result == QMessageBox.StandardButton.Yes
            self.controller.tools.confirmed(name, arguments, approved)

        box.finished.connect(answered)
        box.open()

    # -- what the controller reports, as signals ------------------------------------------------
    def on_run_finished(self, result: RunResult | None) -> None:
        self.run_finished.emit(result)

    def on_tool_finished(self, outcome: ToolOutcome) -> None:
        self.tool_finished.emit(outcome)

    def on_conversation_loaded(self, thread_id: str) -> None:
        self.conversation_loaded.emit(thread_id)

    def on_conversations_listed(self, thread_ids: list[str]) -> None:
        self.conversations_listed.emit(thread_ids)

    def on_exported(self, path: str) -> None:
        self.exported.emit(path)


class ChatDock(QDockWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__("Chat", parent)
        self.setObjectName("chat-dock")
        self.panel = ChatPanel(context, self)
        self.setWidget(self.panel)
