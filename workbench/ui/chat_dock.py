"""The chat panel: the engineer talks to the agent runtime, and sees what it does.

Plain messages go to `AgentRuntime.send`; its events are rendered as they come: streamed text in
bubbles, each tool call as a card (clicking it shows the owning plugin's view), the agent's
questions with an answer box, confirmations as a non-blocking dialog, errors with a Retry button.
Every runtime call is a coroutine on the GUI's qasync loop (`start_task`): the window never waits,
and events reach `_on_agent_event` on the GUI thread. Stop cancels the task of the run.

`/tool NAME {json}` still calls a tool directly (same registry, recorded with caller "gui:chat").
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QCompleter,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.agents import AgentRuntime, BackendError, RunResult
from workbench.agents.events import (
    AgentError,
    AgentEvent,
    FinalAnswer,
    InterruptRequested,
    LoopStopped,
    Malformed,
    ModelCalled,
    Routed,
    RunFinished,
    Token,
    ToolFinished,
    ToolStarted,
)
from workbench.core.context import AppContext
from workbench.core.events import ToolCalled
from workbench.core.tools import ToolOutcome
from workbench.ui.async_loop import start_task
from workbench.ui.bridge import gui_deliver, subscribe_in_gui
from workbench.ui.chat_cards import (
    COLOURS,
    ChatItem,
    ChatView,
    ErrorCard,
    MessageBubble,
    NoteLine,
    QuestionCard,
    ToolCard,
    ToolOwners,
    summarize,
    summarize_text,
)
from workbench.ui.chat_conversations import ConversationBar
from workbench.ui.chat_model_picker import ModelPicker

log = logging.getLogger(__name__)
CALLER = "gui:chat"
SUPERVISOR = "supervisor"
HELP_TEXT = (
    "Write a message to talk to the agent. Commands:\n"
    "  /tools                  list the tools of the loaded plugins\n"
    "  /describe NAME          a tool's arguments\n"
    '  /tool NAME {"arg": 1}   call a tool yourself, with JSON arguments\n'
    "  /new                    start a new conversation\n"
    "  /clear                  empty this view (the conversation is kept)\n"
    "  /help                   this text"
)
RETRY_KINDS = ("model_unreachable", "model_error", "internal")
EventHandler = Callable[[AgentEvent], None]


class HistoryLineEdit(QLineEdit):
    """An input line that recalls earlier entries with Up and Down, like a shell."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.history: list[str] = []
        self._position = 0

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        popup = self.completer().popup() if self.completer() else None
        if popup is None or not popup.isVisible():
            if event.key() == Qt.Key.Key_Up and self.history:
                self._position = max(0, self._position - 1)
                self.setText(self.history[self._position])
                return
            if event.key() == Qt.Key.Key_Down and self.history:
                self._position = min(len(self.history), self._position + 1)
                at_end = self._position == len(self.history)
                self.setText("" if at_end else self.history[self._position])
                return
        super().keyPressEvent(event)


class ChatPanel(QWidget):
    tool_finished = Signal(object)  # ToolOutcome of a /tool command, once shown
    run_finished = Signal(object)  # RunResult, or None when the run was stopped
    conversation_loaded = Signal(str)  # thread id, once its transcript is shown
    conversations_listed = Signal(list)  # thread ids, newest first
    exported = Signal(str)  # path written
    open_plugin_view = Signal(str)  # plugin name: the window shows that plugin's first view

    def __init__(
        self,
        context: AppContext,
        parent: QWidget | None = None,
        *,
        runtime: AgentRuntime | None = None,
    ) -> None:
        super().__init__(parent)
        self.context = context
        self._keeper = _RuntimeKeeper()
        self.runtime_problem = ""
        self._runtime_from_settings = runtime is None
        self.thread_id: str | None = None
        self.owners = ToolOwners(context)
        self._gui_thread = threading.get_ident()
        self._run_task: asyncio.Task[Any] | None = None
        self._bubble: MessageBubble | None = None  # receiving tokens now
        self._last_call_bubble: MessageBubble | None = None  # text of the last model call
        self._cards: dict[str, ToolCard] = {}
        self._question: QuestionCard | None = None
        self._confirmation: QMessageBox | None = None
        self._confirmations: list[QMessageBox] = []  # /tool confirmations
        self._tokens_before = (0, 0)  # conversation tokens (in, out) before the current run
        self._tokens_run = (0, 0)
        self._loading = False  # a stored conversation is being read

        self.conversation_bar = ConversationBar(self)
        self.conversation_bar.chosen.connect(self.open_conversation)
        self.conversation_bar.new_requested.connect(self.new_conversation)
        self.conversation_bar.export_requested.connect(self._export_requested)
        self.view = ChatView(self)
        self.model_picker = ModelPicker(context, self)
        self.model_picker.chosen.connect(self.set_model)
        self.token_label = QLabel()
        self.token_label.setObjectName("chat-tokens")
        self.token_label.setStyleSheet(f"color: {COLOURS['note']};")
        self.input = HistoryLineEdit()
        self.input.setObjectName("chat-input")
        self.input.setPlaceholderText("Message the agent, or /tool NAME {json}  (/help)")
        self.input.returnPressed.connect(self.submit)
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("chat-send")
        self.send_button.clicked.connect(self.submit)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("chat-stop")
        self.stop_button.setToolTip("Stop the agent's run (the conversation is kept)")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        self._completions = QStringListModel(self)
        completer = QCompleter(self._completions, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.input.setCompleter(completer)
        self._refresh_completions()

        status = QHBoxLayout()
        status.setContentsMargins(0, 0, 0, 0)
        status.addWidget(self.model_picker)
        status.addStretch(1)
        status.addWidget(self.token_label)
        row = QHBoxLayout()
        row.addWidget(self.input, 1)
        row.addWidget(self.send_button)
        row.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.conversation_bar)
        layout.addWidget(self.view, 1)
        layout.addLayout(status)
        layout.addLayout(row)

        subscribe_in_gui(context.bus, ToolCalled, self._on_tool_called, self)
        if runtime is not None:
            self.use_runtime(runtime)
        else:
            self._build_runtime(context.settings.model)
        self.destroyed.connect(self._keeper.shutdown)
        self._show_tokens()
        self._welcome()
        start_task(self.refresh_conversations(open_latest=True), name="chat:conversations")

    # -- the runtime ----------------------------------------------------------------------------
    @property
    def runtime(self) -> AgentRuntime | None:
        return self._keeper.runtime

    def use_runtime(self, runtime: AgentRuntime) -> None:
        """Talk through `runtime` (tests: a scripted model); the panel closes it when done."""
        self._keeper.replace(runtime)
        self.runtime_problem = ""
        self.model_picker.set_model(runtime.model_spec)

    def _build_runtime(self, spec: str) -> bool:
        try:
            runtime = AgentRuntime(self.context, spec)
        except (BackendError, ValueError, OSError) as error:  # bad spec, missing key or file
            self.runtime_problem = f"The model {spec!r} cannot be used: {error}"
            self.model_picker.set_model(spec, self.runtime_problem)
            return False
        self.use_runtime(runtime)
        return True

    def set_model(self, spec: str) -> None:
        """The engineer picked another model: remembered in settings, used from the next run."""
        if self.busy:
            self.say("The agent is working; stop it or wait before changing the model.")
            return
        try:
            self.context.settings.model = spec
        except ValueError as error:
            self.error(f"{spec!r} is not a model name the settings accept: {error}")
            return
        if self._build_runtime(spec):
            self._runtime_from_settings = True
            self.say(f"Model: {spec}. The conversation continues with it.")
            start_task(self._save_settings(), name="chat:save-settings")
        else:
            self.error(self.runtime_problem)

    async def _save_settings(self) -> None:
        try:
            await asyncio.to_thread(self.context.save_settings)
        except OSError as error:
            if shiboken6.isValid(self):
                self.error(f"The model choice could not be saved in the settings: {error}")

    def _current_runtime(self) -> AgentRuntime | None:
        # the settings dialog may have changed the model since: follow it
        wanted = self.context.settings.model
        if self._runtime_from_settings and self.runtime and self.runtime.model_spec != wanted:
            self._build_runtime(wanted)
        return self.runtime

    @property
    def busy(self) -> bool:
        return self._run_task is not None and not self._run_task.done()

    # -- transcript -----------------------------------------------------------------------------
    def say(self, text: str, *, who: str = "workbench", colour: str | None = None) -> ChatItem:
        """A message from the engineer ("you") or a note from the workbench itself."""
        if who == "you":
            return self.view.add(MessageBubble("You", text, role="you"))
        return self.view.add(NoteLine(text, colour=colour or COLOURS["note"]))

    def error(self, text: str, action: str = "") -> ErrorCard:
        card = ErrorCard(text, action)
        self.view.add(card)
        return card

    def transcript_text(self) -> str:
        self._flush()
        return self.view.plain_text()

    def _welcome(self) -> None:
        count = len(self.context.registry.names())
        self.say(
            f"Workbench: {count} tool(s) loaded. Write a message to talk to the agent; "
            "/tools lists the tools, /tool NAME {json} runs one yourself, /help shows all."
        )
        if self.runtime_problem:
            self.error(self.runtime_problem + " Pick a model below.")

    def _flush(self) -> None:
        if self._bubble is not None:
            self._bubble.flush()

    # -- input ----------------------------------------------------------------------------------
    def submit(self) -> None:
        text = self.input.text().strip()
        if not text:
            return
        self.input.remember(text)
        self.input.clear()
        self.handle(text)

    def handle(self, text: str) -> None:
        command, _, rest = text.partition(" ")
        rest = rest.strip()
        if not command.startswith("/"):
            self._message(text)
            return
        self.say(text, who="you")
        if command == "/tool":
            self._tool_command(rest)
        elif command == "/tools":
            self._list_tools()
        elif command == "/describe":
            self._describe(rest)
        elif command == "/clear":
            self.view.clear()
            self._bubble = self._last_call_bubble = None
        elif command == "/new":
            self.new_conversation()
        elif command == "/help":
            self.say(HELP_TEXT)
        else:
            self.error(f"Unknown command {command}.\n{HELP_TEXT}")

    def _message(self, text: str) -> None:
        if self._question is not None:  # the agent asked something: this is the answer
            self._question.submit(text)
            return
        self.say(text, who="you")
        if self.busy:
            self.say("The agent is still working on the last message; wait for it or press Stop.")
            return
        if self._loading:
            self.say("The conversation is still loading; send again in a moment.")
            return
        if self._confirmation is not None:
            self.say("The agent waits for your answer to the confirmation dialog first.")
            self._confirmation.raise_()
            return
        runtime = self._current_runtime()
        if runtime is None:
            self.error(f"{self.runtime_problem} Pick a model below, then send again.")
            return
        if self.thread_id is None:
            self.thread_id = runtime.new_thread()
        thread_id = self.thread_id
        self._start_run(lambda on_event: runtime.send(thread_id, text, on_event))

    # -- runs -----------------------------------------------------------------------------------
    def _start_run(self, run: Callable[[EventHandler], Awaitable[RunResult]]) -> None:
        self._bubble = self._last_call_bubble = None
        self._tokens_run = (0, 0)
        self._set_busy(True)
        self._run_task = self._keeper.run = start_task(self._drive(run), name="chat:agent-run")

    async def _drive(self, run: Callable[[EventHandler], Awaitable[RunResult]]) -> None:
        result: RunResult | None = None
        try:
            result = await run(self._on_agent_event)
        finally:  # also when stopped: the panel must be usable again
            if shiboken6.isValid(self):
                self._flush()
                self._set_busy(False)
                start_task(self.refresh_conversations(), name="chat:conversations")
                self.run_finished.emit(result)

    def stop(self) -> None:
        """Cancel the run; the runtime keeps the conversation as of its last finished step."""
        if self.busy:
            assert self._run_task is not None
            self._run_task.cancel()

    def retry(self) -> None:
        runtime, thread_id = self.runtime, self.thread_id
        if runtime is None or thread_id is None or self.busy:
            return
        self.say("Retrying the step that failed…")
        self._start_run(lambda on_event: runtime.retry(thread_id, on_event))

    def _resume(self, answer: Any) -> None:
        runtime, thread_id = self.runtime, self.thread_id
        if runtime is None or thread_id is None:
            return
        self._start_run(lambda on_event: runtime.resume(thread_id, answer, on_event))

    def _set_busy(self, busy: bool) -> None:
        self.stop_button.setEnabled(busy)
        self.conversation_bar.setEnabled(not busy)
        self.model_picker.setEnabled(not busy)  # Send stays: /tool commands work meanwhile

    # -- agent events (GUI thread; keep each cheap: tokens arrive many per second) -------------
    def _on_agent_event(self, event: AgentEvent) -> None:
        if threading.get_ident() != self._gui_thread:  # never expected under qasync; be safe
            gui_deliver(self._on_agent_event, event)
            return
        if not shiboken6.isValid(self):
            return
        if isinstance(event, Token):
            self._on_token(event)
        elif isinstance(event, ModelCalled):
            self._on_model_called(event)
        elif isinstance(event, ToolStarted):
            self._tool_card(event.tool_call_id, event.tool, event.arguments, event.agent)
        elif isinstance(event, ToolFinished):
            self._on_tool_finished(event)
        elif isinstance(event, Routed):
            self._close_bubble()
            self.say(f"→ {event.specialist}: {event.task}")
        elif isinstance(event, Malformed):
            self._on_malformed(event)
        elif isinstance(event, LoopStopped):
            self.say(
                f"The supervisor kept handing the task to {event.specialist} "
                f"({event.routes} times in a row); the run was stopped."
            )
        elif isinstance(event, InterruptRequested):
            self._on_interrupt(event)
        elif isinstance(event, FinalAnswer):
            self._on_final(event)
        elif isinstance(event, AgentError):
            self._on_error(event)
        elif isinstance(event, RunFinished):
            self._on_run_finished(event)

    def _on_token(self, event: Token) -> None:
        bubble = self._bubble
        if bubble is None or bubble.agent != event.agent:
            self._close_bubble()
            specialist = event.agent not in (SUPERVISOR, "")
            who = event.agent if specialist else "Workbench"
            bubble = MessageBubble(
                who, agent=event.agent, role="specialist" if specialist else "workbench"
            )
            self.view.add(bubble)
            self._bubble = bubble
        bubble.append(event.text)

    def _close_bubble(self) -> MessageBubble | None:
        bubble, self._bubble = self._bubble, None
        if bubble is not None:
            bubble.flush()
        return bubble

    def _on_model_called(self, event: ModelCalled) -> None:
        self._last_call_bubble = self._close_bubble()
        tokens_in, tokens_out = self._tokens_run
        self._tokens_run = (tokens_in + event.input_tokens, tokens_out + event.output_tokens)
        self._show_tokens()

    def _on_malformed(self, event: Malformed) -> None:
        bubble = self._last_call_bubble
        if bubble is not None and bubble.agent == event.agent:
            bubble.discard("malformed reply, not kept")
        self._last_call_bubble = None
        self.say(
            f"The model's reply was malformed ({event.problem}: {event.detail}); it was told "
            f"why and asked again ({event.retries_left} retries left).",
            colour=COLOURS["declined"],
        )

    def _on_final(self, event: FinalAnswer) -> None:
        self._close_bubble()
        bubble = self._last_call_bubble
        same = bubble is not None and bubble.text().strip() == event.text.strip()
        if bubble is not None and same and bubble.agent == event.agent:
            bubble.mark_final()
        else:  # not streamed (a guard's message, or a backend that does not stream)
            final = MessageBubble("Workbench", agent=event.agent)
            self.view.add(final)
            final.mark_final(event.text)

    def _on_error(self, event: AgentError) -> None:
        partial = self._close_bubble()
        if partial is not None:  # its model call never finished: not in the conversation
            partial.discard("interrupted, not kept")
        for card in self._cards.values():
            if card.status == "running":
                card.finish(False, error="did not finish: the run ended")
        if event.kind == "cancelled":
            self.say("Stopped. The conversation is kept; send a message to go on.")
            return
        card = self.error(event.message, "Retry" if event.kind in RETRY_KINDS else "")
        card.action.connect(self.retry)

    def _on_run_finished(self, event: RunFinished) -> None:
        totals = event.totals or {}
        if totals:  # the recorded totals replace the live sum
            self._tokens_run = (
                int(totals.get("input_tokens", 0)),
                int(totals.get("output_tokens", 0)),
            )
        tokens_in, tokens_out = self._tokens_before
        run_in, run_out = self._tokens_run
        self._tokens_before, self._tokens_run = (tokens_in + run_in, tokens_out + run_out), (0, 0)
        self._show_tokens()

    def _show_tokens(self) -> None:
        tokens_in = self._tokens_before[0] + self._tokens_run[0]
        tokens_out = self._tokens_before[1] + self._tokens_run[1]
        self.token_label.setText(f"{tokens_in + tokens_out:,} tokens")
        self.token_label.setToolTip(
            f"This conversation: {tokens_in:,} input + {tokens_out:,} output tokens, "
            "as the model backend reported them"
        )

    # -- tool cards -----------------------------------------------------------------------------
    def _tool_card(self, call_id: str, tool: str, arguments: Any, agent: str = "") -> ToolCard:
        self._close_bubble()
        card = ToolCard(
            tool, arguments, agent=agent, linked_plugin=self.owners.plugin_with_view(tool)
        )
        card.activated.connect(self._card_activated)
        self.view.add(card)
        if call_id:
            self._cards[call_id] = card
        return card

    def _on_tool_finished(self, event: ToolFinished) -> None:
        card = self._cards.pop(event.tool_call_id, None)
        if card is None:  # refused before it started (malformed call)
            card = self._tool_card("", event.tool, None, event.agent)
        summary = summarize(event.result) if event.result is not None else ""
        card.finish(
            event.ok,
            duration_s=event.duration_s,
            summary=summary,
            error=event.error,
            error_kind=event.error_kind,
        )

    def _card_activated(self, tool: str) -> None:
        plugin = self.owners.plugin_with_view(tool)
        if plugin:
            self.open_plugin_view.emit(plugin)

    # -- interrupts -----------------------------------------------------------------------------
    def _on_interrupt(self, event: InterruptRequested) -> None:
        self._close_bubble()
        if self._question is not None or self._confirmation is not None:
            return  # one at a time: the next is asked when the run resumes
        if event.kind == "clarification":
            question = QuestionCard(event.question, event.agent)
            self.view.add(question)
            question.answered.connect(self._answered)
            self._question = question
            question.answer.setFocus()
        else:
            self._ask_agent_confirmation(event)

    def _answered(self, text: str) -> None:
        self._question = None
        self._resume(text)

    def _ask_agent_confirmation(self, event: InterruptRequested) -> None:
        arguments = json.dumps(event.arguments, indent=2, ensure_ascii=False, default=str)
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "The agent asks to run a tool",
            f"{event.question}\n\nArguments:\n{arguments}",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setObjectName("confirm-agent-tool")
        box.setDefaultButton(QMessageBox.StandardButton.No)  # acting on the world is opt-in
        self.say(f"{event.agent or 'The agent'} asks to run {event.tool}: see the dialog.")
        self._confirmation = box

        def answered(result: int) -> None:
            self._confirmation = None
            box.deleteLater()
            if result == QMessageBox.StandardButton.Yes:
                self.say(f"You approved {event.tool}.", colour=COLOURS["ok"])
                self._resume({"approved": True, "reason": "approved in the chat"})
            else:
                self.say(f"You declined {event.tool}.", colour=COLOURS["declined"])
                self._resume({"approved": False, "reason": "declined in the chat"})

        box.finished.connect(answered)
        box.open()  # never exec(): the loop (and other runs' progress) keeps going

    # -- conversations --------------------------------------------------------------------------
    async def refresh_conversations(self, open_latest: bool = False) -> None:
        runtime = self.runtime
        if runtime is None:
            return
        conversations = await asyncio.to_thread(runtime.conversations)
        if not shiboken6.isValid(self):
            return
        self.conversation_bar.set_conversations(conversations, self.thread_id)
        self.conversations_listed.emit([c.thread_id for c in conversations])
        if open_latest and conversations and self.thread_id is None and not self.busy:
            await self._load(conversations[0].thread_id)

    def open_conversation(self, thread_id: str) -> None:
        if self.busy or thread_id == self.thread_id:
            return
        start_task(self._load(thread_id), name="chat:open-conversation")

    def new_conversation(self) -> None:
        if self.busy:
            self.say("Stop the agent's run before starting a new conversation.")
            return
        self._reset_conversation(None)
        self._welcome()
        start_task(self.refresh_conversations(), name="chat:conversations")

    def _reset_conversation(self, thread_id: str | None) -> None:
        self.thread_id = thread_id
        self.view.clear()
        self._bubble = self._last_call_bubble = self._question = None
        self._cards.clear()
        self._tokens_before = self._tokens_run = (0, 0)
        self._show_tokens()

    async def _load(self, thread_id: str) -> None:
        """Show a stored conversation and continue it: its transcript, tokens, open questions."""
        runtime = self.runtime
        if runtime is None:
            return
        self._reset_conversation(thread_id)
        self.conversation_bar.setEnabled(False)
        self._loading = True
        try:
            transcript = await runtime.transcript(thread_id)
            calls = await asyncio.to_thread(runtime.log.calls, thread_id=thread_id)
            pending = await runtime.pending(thread_id)
            conversations = await asyncio.to_thread(runtime.conversations)
        except Exception as error:  # a damaged checkpoint must not take the panel down
            log.exception("conversation %s could not be read", thread_id)
            self._loading = False
            if shiboken6.isValid(self):
                self.conversation_bar.setEnabled(True)
                self.error(f"The conversation could not be read: {error}")
            return
        self._loading = False
        if not shiboken6.isValid(self) or self.thread_id != thread_id:
            return
        self.conversation_bar.setEnabled(not self.busy)
        self.say(f"Conversation of {len(transcript)} entries; it continues here.")
        for entry in transcript:
            self._show_entry(entry)
        self._tokens_before = (
            sum(c["input_tokens"] for c in calls),
            sum(c["output_tokens"] for c in calls),
        )
        self._show_tokens()
        for request in pending[:1]:
            self._on_interrupt(request)
        self.conversation_bar.set_conversations(conversations, thread_id)
        self.conversation_loaded.emit(thread_id)

    def _show_entry(self, entry: dict[str, Any]) -> None:
        role, agent, content = entry.get("role"), entry.get("agent", ""), entry.get("content", "")
        if role == "user":
            self.say(str(content), who="you")
        elif role == "handoff":
            self.say(f"→ {entry.get('specialist', '')}: {content}")
        elif role == "tool":
            card = self._tool_card("", str(entry.get("tool", "")), entry.get("arguments"), agent)
            ok = bool(entry.get("ok"))
            card.finish(ok, summary=summarize_text(str(content)), error="" if ok else str(content))
        elif role == "report" or (role == "assistant" and not entry.get("final")):
            if str(content).strip():
                self.view.add(MessageBubble(agent, str(content), agent=agent, role="specialist"))
        elif role == "assistant":
            bubble = MessageBubble("Workbench", agent=agent)
            self.view.add(bubble)
            bubble.mark_final(str(content))

    # -- export ---------------------------------------------------------------------------------
    def _export_requested(self, fmt: str, path: str) -> None:
        start_task(self.export(fmt, Path(path)), name="chat:export")

    async def export(self, fmt: str, path: Path) -> None:
        """Write the conversation (Markdown or JSON) to `path`, off the GUI thread."""
        runtime, thread_id = self.runtime, self.thread_id
        if runtime is None or thread_id is None:
            return
        try:
            text = await runtime.export(thread_id, "json" if fmt == "json" else "markdown")
            await asyncio.to_thread(path.write_text, text, encoding="utf-8")
        except OSError as error:
            if shiboken6.isValid(self):
                self.error(f"The conversation could not be written to {path}: {error}")
            return
        if shiboken6.isValid(self):
            self.say(f"Exported the conversation to {path}.", colour=COLOURS["ok"])
            self.exported.emit(str(path))

    # -- /tool commands -------------------------------------------------------------------------
    def _list_tools(self) -> None:
        registry = self.context.registry
        if not registry.names():
            self.say("No tools are loaded: no plugin contributed any (see the notices).")
            return
        lines = []
        for name in registry.names():
            tool = registry.get(name)
            assert tool is not None
            summary = tool.description.strip().splitlines()[0] if tool.description else ""
            lines.append(f"{name} [{tool.side_effect.value}] — {summary}")
        self.view.add(NoteLine("Tools:\n" + "\n".join(lines), colour=COLOURS["workbench"]))

    def _describe(self, name: str) -> None:
        tool = self.context.registry.get(name)
        if tool is None:
            self._unknown_tool(name)
            return
        schema = tool.args.model_json_schema()
        required = set(schema.get("required", []))
        lines = [tool.description.strip(), "", "Arguments:"]
        for field, spec in schema.get("properties", {}).items():
            kind = spec.get("type") or " | ".join(
                str(option.get("type", "?")) for option in spec.get("anyOf", [])
            )
            default = "" if field in required else f" = {json.dumps(spec.get('default'))}"
            note = f" — {spec['description']}" if spec.get("description") else ""
            lines.append(f"  {field}: {kind}{default}{note}")
        if tool.confirm:
            lines.append("This tool acts on the physical world: you will be asked to confirm.")
        self.view.add(NoteLine("\n".join(lines), colour=COLOURS["workbench"]))

    def _unknown_tool(self, name: str) -> None:
        known = ", ".join(self.context.registry.names()) or "none"
        self.error(f"There is no tool named {name!r}. Known tools: {known}.")

    def _tool_command(self, rest: str) -> None:
        name, _, raw_arguments = rest.partition(" ")
        if not name:
            self.error('Usage: /tool NAME {"arg": value}')
            return
        arguments = self._parse_arguments(name, raw_arguments.strip())
        if arguments is None:
            return
        # a physical action or files outside the workspace: the person sees what and says yes
        needed = self.context.registry.confirmation_needed(name, arguments)
        if needed is not None:
            self._ask_confirmation(name, arguments, needed.message)
        else:
            self.call_tool(name, arguments)

    def _parse_arguments(self, name: str, raw: str) -> dict[str, Any] | None:
        if not raw:
            return {}
        try:
            arguments = json.loads(raw)
        except json.JSONDecodeError as error:
            self.error(
                f"The arguments of {name} are not valid JSON: {error.msg} at column {error.colno}."
                f'\nWrite them as a JSON object, e.g. /tool {name} {{"field": 1}}'
            )
            return None
        if not isinstance(arguments, dict):
            self.error(
                f"The arguments of {name} must be a JSON object ({{...}}), "
                f"not {type(arguments).__name__}."
            )
            return None
        return arguments

    def _ask_confirmation(self, name: str, arguments: dict[str, Any], why: str) -> None:
        # Non-modal question: the window (and running jobs' progress) stays live while it is open.
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Confirm a tool call",
            f"{why}\n\nArguments:\n{json.dumps(arguments, indent=2)}\n\nRun it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self,
        )
        box.setObjectName("confirm-tool")
        self._confirmations.append(box)

        def answered(result: int) -> None:
            self._confirmations.remove(box)
            box.deleteLater()
            if result == QMessageBox.StandardButton.Yes:
                self.call_tool(name, arguments, confirmed=True)
            else:
                self.say(f"{name} was not run: you declined.")

        box.finished.connect(answered)
        box.open()

    def call_tool(self, name: str, arguments: dict[str, Any], *, confirmed: bool = False) -> None:
        card = self._tool_card("", name, arguments, "you")
        start_task(self._run_tool(card, name, arguments, confirmed), name=f"chat:{name}")

    async def _run_tool(
        self, card: ToolCard, name: str, arguments: dict[str, Any], confirmed: bool
    ) -> None:
        outcome = await self.context.registry.acall(
            name, arguments, caller=CALLER, confirmed=confirmed
        )
        if shiboken6.isValid(self) and shiboken6.isValid(card):  # closed meanwhile?
            self.show_outcome(card, outcome)
            self.tool_finished.emit(outcome)
            error = outcome.error
            if error is not None and error.kind == "confirmation_required" and not confirmed:
                # found only while running (a file the tool did not declare): ask now
                self._ask_confirmation(name, arguments, error.message)

    def show_outcome(self, card: ToolCard, outcome: ToolOutcome) -> None:
        explanation = outcome.error.explain() if outcome.error else "failed without a message"
        card.finish(
            outcome.ok,
            duration_s=outcome.duration_s,
            summary=f"call {outcome.call_id}",
            error="" if outcome.ok else explanation,
        )
        if outcome.ok:  # the engineer asked for it: the whole result, not just a summary
            card.set_details(json.dumps(outcome.result, indent=2, ensure_ascii=False, default=str))
        else:
            card.set_details(explanation)

    def _on_tool_called(self, event: ToolCalled) -> None:
        # Calls by views or scripts show up too; the agent's own calls already have their cards.
        if event.caller != CALLER and not event.caller.startswith("agent:"):
            state = "ok" if event.ok else "failed"
            self.say(f"{event.caller} called {event.tool} ({state}, {event.duration_s:.2f} s)")

    def _refresh_completions(self) -> None:
        names = self.context.registry.names()
        commands = ["/help", "/tools", "/clear", "/new"]
        commands += [f"/tool {name} " for name in names]
        commands += [f"/describe {name}" for name in names]
        self._completions.setStringList(commands)


class _RuntimeKeeper:
    """Holds the panel's runtime so it can be closed after the panel itself is deleted."""

    def __init__(self) -> None:
        self.runtime: AgentRuntime | None = None
        self.run: asyncio.Task[Any] | None = None

    def replace(self, runtime: AgentRuntime | None) -> None:
        if self.runtime is not None and self.runtime is not runtime:
            self.close_later(self.runtime)
        self.runtime = runtime

    def close_later(self, runtime: AgentRuntime) -> None:
        # a run still unwinding (stopped, window closed) writes its totals first
        if self.run is not None and not self.run.done():
            self.run.add_done_callback(lambda _task: runtime.close())
        else:
            runtime.close()

    def shutdown(self, *_: object) -> None:
        if self.run is not None:
            self.run.cancel()
        if self.runtime is not None:
            self.close_later(self.runtime)
            self.runtime = None


class ChatDock(QDockWidget):
    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__("Chat", parent)
        self.setObjectName("chat-dock")
        self.panel = ChatPanel(context, self)
        self.setWidget(self.panel)
