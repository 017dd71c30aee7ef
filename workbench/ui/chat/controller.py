"""The chat without its widgets: what the engineer's input means and what the agent's runs do to
the conversation. Qt-free: it draws on a `ChatSurface` (the panel, or a test's recorder) and
starts background work through the `Spawn` it is given (the GUI's `start_task`).

A plain message goes to `AgentRuntime.send`; a slash command is run here (/tool and friends by
`ToolCalls`). One run at a time: Stop cancels its task, Retry reruns the failed step. When the
agent asks something, the next line typed is the answer; when it asks to run a tool, the run waits
for the engineer's yes or no. Conversations are listed, opened (transcript, tokens, an open
question) and exported through the runtime, off the GUI thread.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.agents.events import AgentEvent, InterruptRequested
from workbench.core.context import AppContext
from workbench.ui.chat.commands import HELP_TEXT, parse_input
from workbench.ui.chat.model_choice import ModelChoice
from workbench.ui.chat.surface import ChatSurface, Spawn
from workbench.ui.chat.tool_calls import ToolCalls
from workbench.ui.chat.transcript import Transcript

if TYPE_CHECKING:  # the runtime (LangChain, LangGraph) is imported off the GUI thread, when needed
    from workbench.agents.runtime import AgentRuntime, RunResult

log = logging.getLogger(__name__)
EventHandler = Callable[[AgentEvent], None]
Run = Callable[[EventHandler], Awaitable["RunResult | None"]]


class ChatController:
    def __init__(
        self,
        context: AppContext,
        surface: ChatSurface,
        *,
        spawn: Spawn,
        runtime: AgentRuntime | None = None,
        before_model: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        """`before_model`: awaited before the settings' model is built (the panel: until the
        window has painted; the runtime's imports would only slow its first paint)."""
        self.context = context
        self.surface = surface
        self.spawn = spawn
        self.models = ModelChoice(
            context, surface, spawn, from_settings=runtime is None, before_start=before_model
        )
        self.models.on_loaded = self._model_loaded
        self.transcript = Transcript(surface, self.retry)
        self.tools = ToolCalls(context, surface, self.transcript, spawn)
        self.thread_id: str | None = None
        self._initial_runtime = runtime
        self._run_task: asyncio.Task[Any] | None = None
        self._asking = False  # the agent's question is shown: the next line is its answer
        self._approval: InterruptRequested | None = None  # the agent waits for a yes or no
        self._loading = False  # a stored conversation is being read

    def start(self) -> None:
        """Show the chat: the model in use, a welcome, then the latest conversation."""
        if self._initial_runtime is not None:
            self.models.use(self._initial_runtime)
            self._initial_runtime = None
        else:
            self.models.start(self.context.settings.model)  # a model file loads off-thread
        self.transcript.show_tokens()
        self._welcome()
        self.spawn(self.refresh_conversations(open_latest=True), name="chat:conversations")

    def _model_loaded(self) -> None:
        # a model that loaded after the start: the latest conversation can be opened now
        self.spawn(self.refresh_conversations(open_latest=True), name="chat:conversations")

    @property
    def runtime(self) -> AgentRuntime | None:
        return self.models.runtime

    @property
    def busy(self) -> bool:
        return self._run_task is not None and not self._run_task.done()

    def set_model(self, spec: str) -> None:
        if self.busy:
            self.surface.note("The agent is working; stop it or wait before changing the model.")
            return
        self.models.choose(spec)

    def _welcome(self) -> None:
        count = len(self.context.registry.names())
        self.surface.note(
            f"Workbench: {count} tool(s) loaded. Write a message to talk to the agent; "
            "/tools lists the tools, /tool NAME {json} runs one yourself, /help shows all."
        )
        if self.models.problem:
            self.surface.error(self.models.problem + " Pick a model below.")

    # -- input ----------------------------------------------------------------------------------
    def handle(self, text: str) -> None:
        """A line the engineer sent: a slash command, an answer for the agent, or a message."""
        command = parse_input(text)
        if command is None:
            self._message(text)
            return
        self.surface.user_message(text)
        name, rest = command.name, command.rest
        if name == "/tool":
            self.tools.command(rest)
        elif name == "/tools":
            self.tools.list_tools()
        elif name == "/describe":
            self.tools.describe(rest)
        elif name == "/clear":
            self.surface.clear()
            self.transcript.forget_bubbles()
        elif name == "/new":
            self.new_conversation()
        elif name == "/help":
            self.surface.note(HELP_TEXT)
        else:
            self.surface.error(f"Unknown command {name}.\n{HELP_TEXT}")

    def _message(self, text: str) -> None:
        if self._asking:  # the agent asked something: this is the answer
            self.surface.fill_answer(text)
            return
        self.surface.user_message(text)
        if self.busy:
            self.surface.note(
                "The agent is still working on the last message; wait for it or press Stop."
            )
            return
        if self._loading:
            self.surface.note("The conversation is still loading; send again in a moment.")
            return
        if self._approval is not None:
            self.surface.note("The agent waits for your answer to the confirmation dialog first.")
            self.surface.raise_approval()
            return
        runtime = self.models.current()
        if runtime is None and self.models.loading and not self.models.reads_file:
            # the runtime is being built (a second at most): the message waits for it
            self._start_run(lambda on_event: self._send_when_loaded(text, on_event))
            return
        if runtime is None and self.models.loading:
            self.surface.note(self.models.problem)  # not an error: it is on its way
            return
        if runtime is None:
            self.surface.error(f"{self.models.problem} Pick a model below, then send again.")
            return
        if self.thread_id is None:
            self.thread_id = runtime.new_thread()
        thread_id = self.thread_id
        self._start_run(lambda on_event: runtime.send(thread_id, text, on_event))

    async def _send_when_loaded(self, text: str, on_event: EventHandler) -> RunResult | None:
        runtime = await self.models.loaded()
        if runtime is None:  # the build failed: the model's problem is already shown
            return None
        if self.thread_id is None:
            self.thread_id = runtime.new_thread()
        return await runtime.send(self.thread_id, text, on_event)

    # -- runs -----------------------------------------------------------------------------------
    def _start_run(self, run: Run) -> None:
        self.transcript.start_run()
        self.surface.show_busy(True)
        task = self.spawn(self._drive(run), name="chat:agent-run")
        self._run_task = self.models.keeper.run = task

    async def _drive(self, run: Run) -> None:
        result: RunResult | None = None
        try:
            result = await run(self.surface.deliver_event)
        finally:  # also when stopped: the chat must be usable again
            if self.surface.alive():
                self.transcript.flush()
                self.surface.show_busy(False)
                self.spawn(self.refresh_conversations(), name="chat:conversations")
                self.surface.on_run_finished(result)

    def stop(self) -> None:
        """Cancel the run; the runtime keeps the conversation as of its last finished step."""
        task = self._run_task
        if task is not None and not task.done():
            task.cancel()

    def retry(self) -> None:
        runtime, thread_id = self.runtime, self.thread_id
        if runtime is None or thread_id is None or self.busy:
            return
        self.surface.note("Retrying the step that failed…")
        self._start_run(lambda on_event: runtime.retry(thread_id, on_event))

    def _resume(self, answer: Any) -> None:
        runtime, thread_id = self.runtime, self.thread_id
        if runtime is None or thread_id is None:
            return
        self._start_run(lambda on_event: runtime.resume(thread_id, answer, on_event))

    def on_agent_event(self, event: AgentEvent) -> None:
        """An event of the run, on the surface's thread (see `ChatSurface.deliver_event`)."""
        if isinstance(event, InterruptRequested):
            self._on_interrupt(event)
        else:
            self.transcript.render(event)

    # -- interrupts -----------------------------------------------------------------------------
    def _on_interrupt(self, event: InterruptRequested) -> None:
        self.transcript.close_bubble()
        if self._asking or self._approval is not None:
            return  # one at a time: the next is asked when the run resumes
        if event.kind == "clarification":
            self._asking = True
            self.surface.ask_question(event.question, event.agent)
        else:
            self.surface.note(
                f"{event.agent or 'The agent'} asks to run {event.tool}: see the dialog."
            )
            self._approval = event
            self.surface.ask_approval(event)

    def answer_question(self, text: str) -> None:
        """The engineer answered the agent's question: the run goes on with it."""
        self._asking = False
        self._resume(text)

    def approval_given(self, event: InterruptRequested, approved: bool) -> None:
        """The engineer's yes or no to the agent's tool call: the run goes on either way."""
        self._approval = None
        if approved:
            self.surface.note(f"You approved {event.tool}.", tone="ok")
            self._resume({"approved": True, "reason": "approved in the chat"})
        else:
            self.surface.note(f"You declined {event.tool}.", tone="declined")
            self._resume({"approved": False, "reason": "declined in the chat"})

    # -- conversations --------------------------------------------------------------------------
    async def refresh_conversations(self, open_latest: bool = False) -> None:
        runtime = self.runtime
        if runtime is None:
            return
        conversations = await asyncio.to_thread(runtime.conversations)
        if not self.surface.alive():
            return
        self.surface.show_conversations(conversations, self.thread_id)
        self.surface.on_conversations_listed([c.thread_id for c in conversations])
        if open_latest and conversations and self.thread_id is None and not self.busy:
            await self._load(conversations[0].thread_id)

    def open_conversation(self, thread_id: str) -> None:
        if self.busy or thread_id == self.thread_id:
            return
        self.spawn(self._load(thread_id), name="chat:open-conversation")

    def new_conversation(self) -> None:
        if self.busy:
            self.surface.note("Stop the agent's run before starting a new conversation.")
            return
        self._reset_conversation(None)
        self._welcome()
        self.spawn(self.refresh_conversations(), name="chat:conversations")

    def _reset_conversation(self, thread_id: str | None) -> None:
        self.thread_id = thread_id
        self.surface.clear()
        self._asking = False
        self.transcript.reset()

    async def _load(self, thread_id: str) -> None:
        """Show a stored conversation and continue it: its transcript, tokens, open questions."""
        runtime = self.runtime
        if runtime is None:
            return
        self._reset_conversation(thread_id)
        self.surface.enable_conversations(False)
        self._loading = True
        try:
            entries = await runtime.transcript(thread_id)
            calls = await asyncio.to_thread(runtime.log.calls, thread_id=thread_id)
            pending = await runtime.pending(thread_id)
            conversations = await asyncio.to_thread(runtime.conversations)
        except Exception as error:  # a damaged checkpoint must not take the chat down
            log.exception("conversation %s could not be read", thread_id)
            self._loading = False
            if self.surface.alive():
                self.surface.enable_conversations(True)
                self.surface.error(f"The conversation could not be read: {error}")
            return
        self._loading = False
        if not self.surface.alive() or self.thread_id != thread_id:
            return
        self.surface.enable_conversations(not self.busy)
        self.surface.note(f"Conversation of {len(entries)} entries; it continues here.")
        for entry in entries:
            self.transcript.show_entry(entry)
        self.transcript.count_stored_tokens(calls)
        for request in pending[:1]:
            self._on_interrupt(request)
        self.surface.show_conversations(conversations, thread_id)
        self.surface.on_conversation_loaded(thread_id)

    def export_requested(self, fmt: str, path: str) -> None:
        self.spawn(self.export(fmt, Path(path)), name="chat:export")

    async def export(self, fmt: str, path: Path) -> None:
        """Write the conversation (Markdown or JSON) to `path`, off the GUI thread."""
        runtime, thread_id = self.runtime, self.thread_id
        if runtime is None or thread_id is None:
            return
        try:
            text = await runtime.export(thread_id, "json" if fmt == "json" else "markdown")
            await asyncio.to_thread(path.write_text, text, encoding="utf-8")
        except OSError as error:
            if self.surface.alive():
                self.surface.error(f"The conversation could not be written to {path}: {error}")
            return
        if self.surface.alive():
            self.surface.note(f"Exported the conversation to {path}.", tone="ok")
            self.surface.on_exported(str(path))
