"""A turn loop for agents that are not a conversation: the caller builds each turn's messages.

The supervisor graph (`runtime`) keeps a conversation; some agents must not. A Pufibara task run
shows the model a fresh, compact context each turn, and its comparison loop keeps the full history
itself. `TurnLoop` is the part both share, with any backend (a `make_chat_model` spec or a ready
`BaseChatModel` such as `ScriptedChatModel`):

    loop = TurnLoop(app, "ollama:qwen3:4b", ["read_file", "simulate"], agent="modelica")
    result = loop.run(messages=lambda turns: [...] or None, go_on=lambda turn: True)

Each turn: one model call bound to the named registry tools (streamed; its usage recorded in the
AgentLog like every other call and sent as `ModelCalled`), then the reply's tool calls, run
through the registry as "agent:<name>" (`ToolStarted`/`ToolFinished`). The loop ends when the
builder returns None, `go_on` says no, the `cancel` event is set, the wall-clock deadline passes
(both also cut a model reply short) or the model backend fails. Qt-free.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.utils import message_chunk_to_message

from workbench.agents.accounting import AgentLog, usage_of
from workbench.agents.backends import make_chat_model
from workbench.agents.deadline import Deadline
from workbench.agents.events import AgentEvent, ModelCalled, Token, ToolFinished, ToolStarted
from workbench.agents.graph.model import text_of
from workbench.agents.model_errors import is_model_error, model_error_message
from workbench.agents.toolbridge import (
    ToolRun,
    record_refusal,
    run_tool,
    schemas_for,
    unparseable,
)
from workbench.core.context import AppContext
from workbench.core.events import CURRENT_TOOL_CALL

log = logging.getLogger(__name__)
POLL_S = 0.05  # how often a model call in flight looks at the cancel event and the deadline
Ending = Literal["done", "cancelled", "deadline", "error"]
EventHandler = Callable[[AgentEvent], None]


@dataclass(frozen=True)
class Usage:
    """The tokens of model calls, as seed 003 counts them: logical = all four kinds.

    LangChain's `input_tokens` includes the cached input, so the uncached part is what remains
    after cache creation and cache reads."""

    input_uncached: int = 0
    cache_creation: int = 0
    cache_read: int = 0
    output: int = 0

    @classmethod
    def of(cls, tokens: dict[str, int]) -> Usage:
        """From `accounting.usage_of`'s counts."""
        creation, read = tokens["cache_creation_tokens"], tokens["cache_read_tokens"]
        uncached = max(tokens["input_tokens"] - creation - read, 0)
        return cls(uncached, creation, read, tokens["output_tokens"])

    @property
    def logical(self) -> int:
        return self.input_uncached + self.cache_creation + self.cache_read + self.output

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_uncached + other.input_uncached,
            self.cache_creation + other.cache_creation,
            self.cache_read + other.cache_read,
            self.output + other.output,
        )

    def kinds(self) -> dict[str, int]:
        return {
            "input_uncached": self.input_uncached,
            "cache_creation": self.cache_creation,
            "cache_read": self.cache_read,
            "output": self.output,
        }

    def as_dict(self) -> dict[str, int]:
        return {**self.kinds(), "logical": self.logical}


@dataclass(frozen=True)
class ToolCallResult:
    """One tool call of a reply: the model's call id and arguments, and what running it gave."""

    call_id: str
    name: str
    arguments: Any
    run: ToolRun

    @property
    def ok(self) -> bool:
        return self.run.ok


@dataclass
class Turn:
    number: int
    message: AIMessage | None
    usage: Usage
    latency_s: float
    problem: str = ""  # "empty_message", "invalid_tool_call", "unparseable" or ""
    tool_results: list[ToolCallResult] = field(default_factory=list)

    @property
    def text(self) -> str:
        return text_of(self.message.content) if self.message is not None else ""

    @property
    def called_tools(self) -> bool:
        return bool(self.tool_results)


@dataclass
class LoopResult:
    turns: list[Turn]
    ending: Ending
    error: str = ""
    usage: Usage = field(default_factory=Usage)
    store_run_id: int | None = None

    @property
    def model_calls(self) -> int:
        return len(self.turns)


MessagesBuilder = Callable[[list[Turn]], list[BaseMessage] | None]
GoOn = Callable[[Turn], bool]
ArgumentsHook = Callable[[str, dict[str, Any]], dict[str, Any]]


class _Stopped(Exception):
    """The cancel event or the deadline ended the loop; the argument is the ending."""


class TurnLoop:
    def __init__(
        self,
        app: AppContext,
        model: str | BaseChatModel,
        tools: Sequence[str],
        *,
        agent: str,
        model_name: str | None = None,
        on_event: EventHandler | None = None,
        cancel: threading.Event | None = None,
        deadline_s: float | None = None,
        arguments: ArgumentsHook | None = None,
        thread_id: str | None = None,
    ) -> None:
        """`deadline_s`: wall-clock seconds from the start of `run`; `arguments(tool, args)`
        gives the arguments actually passed to the registry (e.g. adds a run id)."""
        self.app = app
        if isinstance(model, BaseChatModel):
            self.model, self.model_name = model, model_name or f"custom:{model._llm_type}"
        else:
            self.model_name = model
            self.model = make_chat_model(model, app.settings)
        self.tools = [name for name in tools if app.registry.get(name) is not None]
        self.agent = agent
        self.on_event = on_event
        self.cancel = cancel or threading.Event()
        self.deadline_s = deadline_s
        self.arguments = arguments
        self.thread_id = thread_id or f"{agent}-{uuid.uuid4().hex[:12]}"
        self._deadline: float | None = None

    def run(self, messages: MessagesBuilder, go_on: GoOn) -> LoopResult:
        """The loop in this thread (its own event loop): a worker thread or a headless command.

        Not `asyncio.run`: that waits for the executor's threads at the end, so a model reply
        that a cancel cut short (a synchronous backend's thread) would hold the run until it
        finished anyway. Here the executor is let go; its thread ends on its own."""
        loop = asyncio.new_event_loop()
        executor = ThreadPoolExecutor(thread_name_prefix=f"turn-loop-{self.agent}")
        loop.set_default_executor(executor)
        try:
            return loop.run_until_complete(self.arun(messages, go_on))
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            executor.shutdown(wait=False, cancel_futures=True)
            loop.close()

    async def arun(self, messages: MessagesBuilder, go_on: GoOn) -> LoopResult:
        started = time.monotonic()
        self._deadline = None if self.deadline_s is None else started + self.deadline_s
        store_run = self.app.store.start_run(
            "agent", {"thread_id": self.thread_id, "model": self.model_name, "agent": self.agent}
        )
        result = LoopResult([], "done", store_run_id=store_run)
        log_file = AgentLog(self.app.store.folder)
        try:
            async with Deadline(self.deadline_s):
                await self._turns(result, messages, go_on, log_file, store_run)
        except _Stopped as stop:
            result.ending = stop.args[0]
        except Exception as failure:
            if not is_model_error(failure):
                raise
            result.ending = "error"
            _, result.error = model_error_message(failure, self.model_name, self.app.settings)
        finally:
            totals = log_file.totals(store_run)
            log_file.close()
            self.app.store.finish_run(
                store_run,
                result.ending,
                {"thread_id": self.thread_id, "model": self.model_name, "totals": totals},
            )
        return result

    async def _turns(
        self,
        result: LoopResult,
        messages: MessagesBuilder,
        go_on: GoOn,
        log_file: AgentLog,
        store_run: int,
    ) -> None:
        bound = self.model.bind_tools(schemas_for(self.app, self.tools))
        while True:
            self._check_stop()
            shown = messages(result.turns)
            if shown is None:
                return
            turn = await self._model_turn(bound, shown, len(result.turns) + 1, log_file, store_run)
            result.turns.append(turn)
            result.usage = result.usage + turn.usage
            await self._run_tools(turn)
            if not go_on(turn):
                return

    def _check_stop(self) -> None:
        if self.cancel.is_set():
            raise _Stopped("cancelled")
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise _Stopped("deadline")

    def _emit(self, event: AgentEvent) -> None:
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception:  # a broken listener must not break the run
            log.exception("turn loop event handler failed on %s", event)

    async def _model_turn(
        self, bound: Any, shown: list[BaseMessage], number: int, log_file: AgentLog, store_run: int
    ) -> Turn:
        """One model call, cut short by cancel or the deadline; logged and reported."""
        started = time.perf_counter()
        call = asyncio.ensure_future(self._stream(bound, shown))
        while not call.done():
            await asyncio.wait({call}, timeout=POLL_S)
            if not call.done():
                try:
                    self._check_stop()
                except _Stopped:
                    call.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await call
                    raise
        message, problem = call.result()
        latency = time.perf_counter() - started
        tokens = usage_of(message)
        log_file.record_call(
            run_id=store_run,
            thread_id=self.thread_id,
            agent=self.agent,
            model=self.model_name,
            tokens=tokens,
            latency_s=latency,
            problem=problem,
        )
        self._emit(
            ModelCalled(
                thread_id=self.thread_id,
                agent=self.agent,
                model=self.model_name,
                latency_s=latency,
                problem=problem,
                **tokens,
            )
        )
        return Turn(number, message, Usage.of(tokens), latency, problem)

    async def _stream(self, bound: Any, shown: list[BaseMessage]) -> tuple[AIMessage | None, str]:
        merged = None
        try:
            async for chunk in bound.astream(shown):
                if text := text_of(chunk.content):
                    self._emit(Token(thread_id=self.thread_id, agent=self.agent, text=text))
                merged = chunk if merged is None else merged + chunk
        except OutputParserException:  # a backend choking on broken tool JSON
            return None, "unparseable"
        message = message_chunk_to_message(merged) if merged is not None else None
        if not isinstance(message, AIMessage):
            return None, "empty_message"
        if message.invalid_tool_calls:
            return message, "invalid_tool_call"
        if not (text_of(message.content).strip() or message.tool_calls):
            return message, "empty_message"
        return message, ""

    async def _run_tools(self, turn: Turn) -> None:
        """The reply's tool calls in order; a cancel stops before the next one."""
        message = turn.message
        if message is None:
            return
        for broken in message.invalid_tool_calls:
            name, raw = broken.get("name") or "", broken.get("args")
            error = unparseable(name, raw, broken.get("error") or "not valid JSON")
            refused = record_refusal(self.app, self.agent, name, raw, error)
            call_id = broken.get("id") or f"invalid-{turn.number}"
            turn.tool_results.append(ToolCallResult(call_id, name, raw, refused))
            self._emit_finished(call_id, refused)
        for call in message.tool_calls:
            if self.cancel.is_set():
                return
            call_id = call.get("id") or f"call-{turn.number}-{len(turn.tool_results)}"
            arguments = call["args"]
            self._emit(
                ToolStarted(
                    thread_id=self.thread_id,
                    agent=self.agent,
                    tool=call["name"],
                    tool_call_id=call_id,
                    arguments=arguments,
                )
            )
            passed = self.arguments(call["name"], dict(arguments)) if self.arguments else arguments
            marker = CURRENT_TOOL_CALL.set(call_id)  # jobs the tool starts name this call
            try:
                ran = await run_tool(self.app, self.agent, call["name"], passed, self.tools)
            finally:
                CURRENT_TOOL_CALL.reset(marker)
            turn.tool_results.append(ToolCallResult(call_id, call["name"], arguments, ran))
            self._emit_finished(call_id, ran)

    def _emit_finished(self, call_id: str, ran: ToolRun) -> None:
        self._emit(
            ToolFinished(
                thread_id=self.thread_id,
                agent=self.agent,
                tool=ran.tool,
                tool_call_id=call_id,
                ok=ran.ok,
                duration_s=ran.duration_s,
                store_call_id=ran.store_call_id,
                result=ran.result,
                error=ran.error.explain() if ran.error else "",
                error_kind=ran.error.kind if ran.error else "",
            )
        )
