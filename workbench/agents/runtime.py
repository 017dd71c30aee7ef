"""The facade the chat panel, the CLI and the bench call: one `AgentRuntime` per workspace.

    runtime = AgentRuntime(context, "ollama:qwen3:4b")
    result = await runtime.send(thread_id, "add 2 and 3", on_event=panel.render)
    if result.status == "interrupted":          # a question or a confirmation for the engineer
        result = await runtime.resume(thread_id, answer, on_event=panel.render)

Conversations are checkpointed in `<workspace>/conversations.sqlite` (LangGraph's SQLite saver,
opened per run so a run belongs to whichever event loop calls it: graph/build.py) and
listed from `<workspace>/agents.sqlite`. A failed run (model server down, cancelled) leaves the
conversation as it was after the last finished step: `send` again, or `retry` the failed step.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from workbench.agents.accounting import AgentLog, Conversation
from workbench.agents.backends import make_chat_model
from workbench.agents.deadline import Deadline
from workbench.agents.events import (
    AgentError,
    AgentEvent,
    InterruptRequested,
    ModelCalled,
    RunFinished,
    RunStarted,
    ToolFinished,
)
from workbench.agents.export import to_json, to_markdown
from workbench.agents.graph.build import CheckpointFile, build_graph, settle_stopped_run
from workbench.agents.graph.model import text_of
from workbench.agents.graph.run import USER_CANCELLED
from workbench.agents.graph.state import (
    MAX_CONSECUTIVE_ROUTES,
    MAX_RETRIES,
    GraphDeps,
    turn_input,
)
from workbench.agents.hitl import HeadlessPolicy
from workbench.agents.model_errors import is_model_error, model_error_message
from workbench.agents.routing.prior import RoutingPrior, default_prior
from workbench.agents.scripted import ScriptedChatModel
from workbench.core.context import AppContext
from workbench.core.events import Notice
from workbench.core.plugins import Specialist, contributed_specialists

log = logging.getLogger(__name__)
CHECKPOINT_FILE = "conversations.sqlite"
RECURSION_LIMIT = 200  # graph steps per run; each tool round trip takes two
MAX_POLICY_ROUNDS = 50  # interrupts a headless policy answers in one run
EventHandler = Callable[[AgentEvent], None]
Status = Literal["done", "stopped", "interrupted", "error", "cancelled"]


@dataclass
class RunResult:
    thread_id: str
    status: Status  # "stopped": a guard ended it (routing loop, malformed replies)
    answer: str = ""
    error: str = ""
    interrupts: list[InterruptRequested] = field(default_factory=list)
    events: list[AgentEvent] = field(default_factory=list)
    totals: dict[str, Any] = field(default_factory=dict)
    run_id: int | None = None
    notices: list[str] = field(default_factory=list)  # e.g. a plugin's specialists not made


class _BudgetSpent(Exception):
    """The run reached one of its limits (raised between streamed events, outside the graph);
    the message names the limit."""


@dataclass
class _Spending:
    started: float  # time.monotonic() at the start of the run
    model_calls: int = 0
    tokens: int = 0


class AgentRuntime:
    def __init__(
        self,
        context: AppContext,
        model: str | BaseChatModel | None = None,
        *,
        model_name: str | None = None,
        policy: HeadlessPolicy | None = None,
        max_routes: int = MAX_CONSECUTIVE_ROUTES,
        max_retries: int = MAX_RETRIES,
        max_model_calls: int | None = None,
        max_tokens: int | None = None,
        max_seconds: float | None = None,
        publish_events: bool = False,
        prior: RoutingPrior | Literal["auto"] | None = "auto",
    ) -> None:
        """`model` is a spec string (default: settings.model) or a ready chat model (tests,
        bench policies). Without a `policy`, interrupts end the run with status "interrupted".
        `prior` is the supervisor's routing prior; "auto": the offline MiniLM prior if installed,
        except for a scripted model, whose script already says where each request goes."""
        self.context = context
        if isinstance(model, BaseChatModel):
            self.model, self.model_spec = model, model_name or f"custom:{model._llm_type}"
        else:
            self.model_spec = model or context.settings.model
            self.model = make_chat_model(self.model_spec, context.settings)
        self.policy = policy
        self.max_routes = max_routes
        self.max_retries = max_retries
        # per run, whatever the interrupts: a benchmark cell's budget. Checked after each step,
        # so a tool's work is never cut in half; the clock also ends a llama.cpp reply (Deadline)
        self.max_model_calls = max_model_calls
        self.max_tokens = max_tokens  # prompt + completion tokens over the run
        self.max_seconds = max_seconds  # wall clock
        self.publish_events = publish_events
        if prior == "auto":
            prior = None if isinstance(self.model, ScriptedChatModel) else default_prior()
        self.prior = prior
        self.checkpoint_path = context.store.folder / CHECKPOINT_FILE
        self.checkpoints = CheckpointFile(self.checkpoint_path)
        self.log = AgentLog(context.store.folder)
        self._from_spec = not isinstance(model, BaseChatModel)
        self._model_loop: asyncio.AbstractEventLoop | None = None
        self._sync_loop: asyncio.AbstractEventLoop | None = None
        self._contributed: list[Specialist] = []  # made at run time (`Plugin.specialists`)
        self._notices: list[str] = []  # why some were not, at the last refresh

    def close(self) -> None:
        if self._sync_loop is not None:
            self._sync_loop.close()
            self._sync_loop = None
        self.log.close()

    def _model_for_this_loop(self) -> BaseChatModel:
        """HTTP clients (Ollama, OpenAI) keep connections bound to the loop that opened them:
        a model built from a spec is rebuilt when runs move to another event loop."""
        loop = asyncio.get_running_loop()
        if self._from_spec and self._model_loop not in (None, loop):
            self.model = make_chat_model(self.model_spec, self.context.settings)
        self._model_loop = loop
        return self.model

    def _sync(self, coroutine: Any) -> RunResult:
        # one loop for all sync calls, so pooled model connections stay usable between turns
        if self._sync_loop is None:
            self._sync_loop = asyncio.new_event_loop()
        return self._sync_loop.run_until_complete(coroutine)

    # -- what there is --------------------------------------------------------------------------
    def specialists(self) -> list[Specialist]:
        """The plugins' specialists, then those made at run time (as of the last refresh)."""
        static = [p.specialist for p in self.context.plugins if p.specialist is not None]
        return static + self._contributed

    async def _refresh_contributed(self) -> None:
        """Await the plugins' `specialists` functions (their tools land in the registry); a
        failing one is a notice on the bus and in the run, never a failed run."""
        self._contributed, self._notices = await contributed_specialists(
            self.context.plugins, self.context
        )
        for text in self._notices:
            log.warning(text)
            self.context.bus.publish(Notice(source="agents", level="warning", text=text))

    def new_thread(self) -> str:
        return uuid.uuid4().hex

    def conversations(self) -> list[Conversation]:
        """Newest first."""
        return self.log.conversations()

    # -- running --------------------------------------------------------------------------------
    async def send(
        self, thread_id: str, text: str, on_event: EventHandler | None = None
    ) -> RunResult:
        """The engineer says `text` in conversation `thread_id` (new or existing)."""
        title = " ".join(text.split())[:60]
        self.log.touch(thread_id, title=title, model=self.model_spec)
        return await self._run(thread_id, turn_input(text, self.max_retries), on_event, text)

    async def resume(
        self, thread_id: str, answer: Any, on_event: EventHandler | None = None
    ) -> RunResult:
        """Answer the pending interrupt: a clarification (text) or a confirmation (True/False or
        {"approved": bool, "reason": str})."""
        return await self._run(thread_id, Command(resume=answer), on_event)

    async def retry(self, thread_id: str, on_event: EventHandler | None = None) -> RunResult:
        """Run again the step that failed (e.g. the model server was down)."""
        return await self._run(thread_id, None, on_event)

    def send_sync(
        self, thread_id: str, text: str, on_event: EventHandler | None = None
    ) -> RunResult:
        return self._sync(self.send(thread_id, text, on_event))

    def resume_sync(
        self, thread_id: str, answer: Any, on_event: EventHandler | None = None
    ) -> RunResult:
        return self._sync(self.resume(thread_id, answer, on_event))

    def retry_sync(self, thread_id: str, on_event: EventHandler | None = None) -> RunResult:
        return self._sync(self.retry(thread_id, on_event))

    @asynccontextmanager
    async def _graph(self) -> AsyncIterator[CompiledStateGraph]:
        await self._refresh_contributed()
        deps = GraphDeps(
            context=self.context,
            model=self._model_for_this_loop(),
            model_name=self.model_spec,
            specialists={s.name: s for s in self.specialists()},
            log=self.log,
            max_routes=self.max_routes,
            max_retries=self.max_retries,
            prior=self.prior,
        )
        # per run, so a run belongs to whichever loop calls it; how a stopped run is kept from
        # locking the file for the next: graph/build.py
        async with self.checkpoints.saver() as saver:
            yield build_graph(deps).compile(checkpointer=saver)

    def _config(self, thread_id: str, run_id: int | None = None) -> RunnableConfig:
        return {
            "configurable": {"thread_id": thread_id, "run_id": run_id},
            "recursion_limit": RECURSION_LIMIT,
        }

    async def _run(
        self, thread_id: str, graph_input: Any, on_event: EventHandler | None, text: str = ""
    ) -> RunResult:
        result = RunResult(thread_id, "done")

        def emit(event: AgentEvent) -> None:
            result.events.append(event)
            if on_event is not None:
                try:
                    on_event(event)
                except Exception:  # a broken view must not break the run
                    log.exception("agent event handler failed on %s", event)
            if self.publish_events:
                self.context.bus.publish(event)

        result.run_id = run_id = self.context.store.start_run(
            "agent", {"thread_id": thread_id, "model": self.model_spec}
        )
        config = self._config(thread_id, run_id)
        emit(RunStarted(thread_id=thread_id, model=self.model_spec, text=text))
        spent = _Spending(time.monotonic())
        try:
            async with self._graph() as graph, Deadline(self.max_seconds):
                result.notices = list(self._notices)
                for _ in range(MAX_POLICY_ROUNDS):
                    await self._stream_pass(graph, graph_input, config, emit, spent)
                    requests = await self._pending(graph, thread_id)
                    if not requests:
                        break
                    for request in requests:
                        emit(request)
                    if self.policy is None:
                        result.status, result.interrupts = "interrupted", requests
                        break
                    graph_input = Command(resume=self.policy.answer(requests[0]))
                if result.status == "done":
                    values = (await graph.aget_state(config)).values
                    result.answer = _answer(values)
                    if values.get("outcome") in ("loop_stopped", "gave_up"):
                        result.status = "stopped"
                    elif values.get("outcome") == USER_CANCELLED:  # a job's Cancel in the GUI
                        result.status, result.answer = "cancelled", ""
                        result.error = _user_cancelled_message(result.events)
                        emit(
                            AgentError(
                                thread_id=thread_id, kind=USER_CANCELLED, message=result.error
                            )
                        )
        except asyncio.CancelledError:
            result.status, result.error = "cancelled", "Stopped by the engineer."
            emit(AgentError(thread_id=thread_id, kind="cancelled", message=result.error))
            self._finish(result, run_id, emit)
            raise
        except _BudgetSpent as limit:
            result.status = "error"
            result.error = f"The run used its budget of {limit} and was stopped."
            emit(AgentError(thread_id=thread_id, kind="budget", message=result.error))
        except GraphRecursionError:
            result.status = "error"
            result.error = (
                f"The run took more than {RECURSION_LIMIT} steps and was stopped. "
                "Ask for a smaller step; the conversation is kept."
            )
            emit(AgentError(thread_id=thread_id, kind="recursion", message=result.error))
        except Exception as failure:
            result.status = "error"
            if is_model_error(failure):
                kind, result.error = model_error_message(
                    failure, self.model_spec, self.context.settings
                )
            else:
                log.exception("agent run failed")
                kind = "internal"
                result.error = (
                    f"The agent runtime failed ({type(failure).__name__}: {failure}). This is a "
                    "bug; the conversation is kept and the run is recorded in the workspace."
                )
            emit(AgentError(thread_id=thread_id, kind=kind, message=result.error))
        self._finish(result, run_id, emit)
        return result

    async def _stream_pass(
        self,
        graph: CompiledStateGraph,
        graph_input: Any,
        config: RunnableConfig,
        emit: EventHandler,
        spent: _Spending,
    ) -> None:
        """Run the graph until it ends or waits for a person, passing on its events and checking
        the budget after each step (raises _BudgetSpent)."""
        # closed here, not by the garbage collector, when the budget ends the run; astream is an
        # async generator, typed as a plain AsyncIterator
        stream = cast(
            AsyncGenerator[Any, None], graph.astream(graph_input, config, stream_mode="custom")
        )
        try:
            async with aclosing(stream):
                async for event in stream:
                    if not isinstance(event, AgentEvent):
                        continue
                    emit(event)
                    if isinstance(event, ModelCalled):
                        spent.model_calls += 1
                        spent.tokens += event.input_tokens + event.output_tokens
                    if isinstance(event, ModelCalled | ToolFinished):  # a step ended
                        self._check_budget(spent)
        except asyncio.CancelledError as stop:  # its last checkpoint writes, before closing
            await settle_stopped_run(stop)
            raise

    def _check_budget(self, spent: _Spending) -> None:
        if self.max_model_calls and spent.model_calls >= self.max_model_calls:
            raise _BudgetSpent(f"{self.max_model_calls} model calls")
        if self.max_tokens and spent.tokens >= self.max_tokens:
            raise _BudgetSpent(f"{self.max_tokens} tokens")
        if self.max_seconds and time.monotonic() - spent.started >= self.max_seconds:
            raise _BudgetSpent(f"{self.max_seconds:g} s")

    def _finish(self, result: RunResult, run_id: int, emit: EventHandler) -> None:
        result.totals = self.log.totals(run_id)
        self.context.store.finish_run(
            run_id,
            result.status,
            {
                "thread_id": result.thread_id,
                "model": self.model_spec,
                "totals": result.totals,
                "error": result.error,
                "notices": result.notices,
            },
        )
        self.log.touch(result.thread_id, title="", model=self.model_spec)
        emit(RunFinished(thread_id=result.thread_id, status=result.status, totals=result.totals))

    async def _pending(self, graph: CompiledStateGraph, thread_id: str) -> list[InterruptRequested]:
        snapshot = await graph.aget_state(self._config(thread_id))
        return [
            InterruptRequested(
                thread_id=thread_id,
                agent=str(item.value.get("agent", "")),
                interrupt_id=item.id,
                kind=item.value.get("kind", "clarification"),
                question=str(item.value.get("question", "")),
                tool=str(item.value.get("tool", "")),
                arguments=dict(item.value.get("arguments") or {}),
            )
            for item in snapshot.interrupts
            if isinstance(item.value, dict)
        ]

    # -- reading back ---------------------------------------------------------------------------
    async def pending(self, thread_id: str) -> list[InterruptRequested]:
        """Questions/confirmations a reopened conversation still waits for."""
        async with self._graph() as graph:
            return await self._pending(graph, thread_id)

    async def transcript(self, thread_id: str) -> list[dict[str, Any]]:
        """Every entry of the conversation: user, hand-offs, tool calls, reports, answers."""
        async with self._graph() as graph:
            values = (await graph.aget_state(self._config(thread_id))).values
        return list(values.get("transcript", []))

    async def export(self, thread_id: str, fmt: Literal["markdown", "json"] = "markdown") -> str:
        transcript = await self.transcript(thread_id)
        known = {c.thread_id: c for c in self.conversations()}
        title = known[thread_id].title if thread_id in known else thread_id
        render = to_markdown if fmt == "markdown" else to_json
        return render(thread_id, title, self.model_spec, transcript)


def _answer(values: dict[str, Any]) -> str:
    for message in reversed(values.get("messages", [])):
        if isinstance(message, AIMessage) and not message.tool_calls:
            return text_of(message.content)
    return ""


def _user_cancelled_message(events: list[AgentEvent]) -> str:
    """For the person: which of the agent's tool calls they cancelled, and what happens now."""
    tools = [
        e.tool for e in events if isinstance(e, ToolFinished) and e.error_kind == USER_CANCELLED
    ]
    what = tools[-1] if tools else "a job of the agent"
    return (
        f"You cancelled {what}, so the agent stopped there; nothing after it was done. "
        "The conversation is kept: send a message to go on."
    )
