"""The model call both agent nodes make, and the messages it sees.

One model call of one agent is streamed, logged and judged usable or not; a reply that could not
be used leads to a nudge for the next try, or to giving up. The messages are made fit for the next
call: plain text out of content blocks, dangling tool calls answered, unparseable tool calls turned
into ordinary (refused) calls.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.runnables import RunnableConfig

from workbench.agents.accounting import usage_of
from workbench.agents.events import Malformed, ModelCalled, Token
from workbench.agents.graph.run import emit, run_ids, thread_of
from workbench.agents.graph.state import GraphDeps
from workbench.agents.prompts import nudge_for


def text_of(content: Any) -> str:
    """The text of a message's content, whether a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str) or block.get("type") == "text"
        )
    return str(content or "")


def closed(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """A tool call left unanswered (a run stopped mid-way) gets a placeholder answer, because
    chat APIs refuse a conversation with a dangling tool call."""
    out: list[BaseMessage] = []
    pending: dict[str, str] = {}

    def flush() -> None:
        out.extend(
            ToolMessage("(no result: the run stopped before this call finished)", tool_call_id=i)
            for i in pending
        )
        pending.clear()

    for message in messages:
        if isinstance(message, ToolMessage):
            pending.pop(message.tool_call_id, None)
        else:
            flush()
        out.append(message)
        if isinstance(message, AIMessage):
            pending = {id_of(call): call["name"] for call in message.tool_calls}
    flush()
    return out


def id_of(call: ToolCall) -> str:
    """A tool call's id; `sanitized` gives every call one."""
    return call["id"] or ""


@dataclass(frozen=True)
class BadCall:
    """A tool call whose arguments could not be parsed."""

    id: str
    name: str
    raw: Any
    problem: str

    @property
    def problem_text(self) -> str:
        """The parser's complaint, short enough to show the model."""
        return (self.problem or "not valid JSON").splitlines()[0][:200]


def sanitized(message: AIMessage) -> tuple[AIMessage, dict[str, BadCall]]:
    """Unparseable tool calls become ordinary calls with empty arguments (answered with an error
    by us), so every call id in the history has exactly one answer."""
    calls = [
        {**call, "id": call.get("id") or f"call_{uuid.uuid4().hex[:12]}"}
        for call in message.tool_calls
    ]
    bad: dict[str, BadCall] = {}
    for invalid in message.invalid_tool_calls:
        call_id = invalid.get("id") or f"call_{uuid.uuid4().hex[:12]}"
        name = invalid.get("name") or ""
        bad[call_id] = BadCall(call_id, name, invalid.get("args"), invalid.get("error") or "")
        calls.append({"name": name, "args": {}, "id": call_id, "type": "tool_call"})
    clean = AIMessage(
        content=message.content,
        tool_calls=calls,
        id=message.id,
        name=message.name,
        usage_metadata=message.usage_metadata,
        response_metadata=message.response_metadata,
    )
    return clean, bad


@dataclass
class Reply:
    """A model's reply and, when it cannot be used as it is, what is wrong with it."""

    message: AIMessage | None
    problem: str = ""
    detail: str = ""

    @property
    def usable(self) -> bool:
        return self.message is not None and self.problem not in ("unparseable", "empty_message")


def _judged(message: AIMessage | None) -> tuple[str, str]:
    """(problem, detail) of a reply that parsed; ("", "") when it is fine."""
    if message is None or not (
        text_of(message.content).strip() or message.tool_calls or message.invalid_tool_calls
    ):
        return "empty_message", "no text and no tool call"
    if message.invalid_tool_calls:
        # the backend's own account when it has one (llama.cpp: the reply was cut off)
        why = str(message.invalid_tool_calls[0].get("error") or "").strip().splitlines()
        detail = "tool call arguments are not valid JSON"
        return "invalid_tool_call", f"{detail} ({why[0][:200]})" if why else detail
    return "", ""


async def call_model(
    deps: GraphDeps, agent: str, messages: list[BaseMessage], config: RunnableConfig
) -> Reply:
    """Stream the agent's reply (tokens go out as they come), log the call and judge the reply."""
    thread_id, run_id = run_ids(config)
    started = time.perf_counter()
    merged = None
    problem = detail = ""
    try:
        async for chunk in deps.bound[agent].astream(messages):
            if text := text_of(chunk.content):
                emit(Token(thread_id=thread_id, agent=agent, text=text))
            merged = chunk if merged is None else merged + chunk
    except OutputParserException as error:  # e.g. a backend choking on broken tool JSON
        problem, detail = "unparseable", str(error).strip().splitlines()[-1][:300]
    latency = time.perf_counter() - started
    message = message_chunk_to_message(merged) if merged is not None else None
    if not isinstance(message, AIMessage):
        message = None
    if not problem:
        problem, detail = _judged(message)
    tokens = usage_of(message)
    deps.log.record_call(
        run_id=run_id,
        thread_id=thread_id,
        agent=agent,
        model=deps.model_name,
        tokens=tokens,
        latency_s=latency,
        problem=problem,
    )
    emit(
        ModelCalled(
            thread_id=thread_id,
            agent=agent,
            model=deps.model_name,
            latency_s=latency,
            problem=problem,
            **tokens,
        )
    )
    return Reply(message, problem, detail)


def malformed(agent: str, reply: Reply, retries: int, config: RunnableConfig) -> tuple[int, str]:
    """An unusable reply is reported; gives the retries left after it (from `retries`) and the
    nudge the agent hears on its next try."""
    left = retries - 1
    emit(
        Malformed(
            thread_id=thread_of(config),
            agent=agent,
            problem=reply.problem,
            detail=reply.detail,
            retries_left=max(left, 0),
        )
    )
    return left, nudge_for(reply.problem, reply.detail)


def give_up_text(deps: GraphDeps, reply: Reply) -> str:
    return (
        f"I could not get a usable reply from the model after {deps.max_retries} attempts "
        f"(last problem: {reply.problem}, {reply.detail}). Try again or choose another model."
    )
