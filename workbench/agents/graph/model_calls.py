"""One model call of one agent (streamed, logged, judged usable or not) and what follows a reply
that could not be used: a nudge for the next try, or giving up."""

from __future__ import annotations

import time
from dataclasses import dataclass

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.runnables import RunnableConfig

from workbench.agents.accounting import usage_of
from workbench.agents.events import Malformed, ModelCalled, Token
from workbench.agents.graph.deps import GraphDeps
from workbench.agents.graph.messages import text_of
from workbench.agents.graph.stream import emit, run_ids, thread_of
from workbench.agents.prompts import nudge_for


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
        return "invalid_tool_call", "tool call arguments are not valid JSON"
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
