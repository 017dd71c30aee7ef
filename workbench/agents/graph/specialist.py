"""The specialist node: the active specialist works on its task with its own short tool list.

A reply without tool calls is its report to the supervisor; a reply with tool calls goes to the
tool node (unparseable calls are answered here, with an error, and never run).
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from workbench.agents.events import ToolFinished
from workbench.agents.graph.model import (
    BadCall,
    call_model,
    closed,
    give_up_text,
    malformed,
    sanitized,
    text_of,
)
from workbench.agents.graph.run import emit, report, thread_of
from workbench.agents.graph.state import SPECIALIST, TOOLS, AgentState, GraphDeps, entry
from workbench.agents.prompts import specialist_prompt
from workbench.agents.toolbridge import record_refusal, unparseable


class SpecialistNode:
    """The graph node; one per graph, over the graph's deps."""

    def __init__(self, deps: GraphDeps) -> None:
        self.deps = deps

    async def __call__(self, state: AgentState, config: RunnableConfig) -> Command:
        name = state["active"]
        work = list(state.get("work", []))
        inputs: list[BaseMessage] = [
            SystemMessage(specialist_prompt(self.deps.specialists[name])),
            HumanMessage(state["task"]),
            *closed(work),
        ]
        if state.get("nudge"):
            inputs.append(HumanMessage(state["nudge"]))
        reply = await call_model(self.deps, name, inputs, config)
        if reply.message is None or not reply.usable:
            retries = state.get("work_retries", self.deps.max_retries)
            left, nudge = malformed(name, reply, retries, config)
            if left > 0:
                return Command(update={"work_retries": left, "nudge": nudge}, goto=SPECIALIST)
            text = f"{name} could not do the task: " + give_up_text(self.deps, reply)
            return report(state, text, work)
        message, bad = sanitized(reply.message)
        text = text_of(message.content)
        if not message.tool_calls:
            return report(state, text, [*work, message])
        answers = [self._refused(name, call, config) for call in bad.values()]
        return Command(
            update={
                "work": [*work, message, *answers],
                "nudge": "",
                "reply_malformed": bool(bad),
                "transcript": [
                    entry(
                        "assistant", name, text, tool_calls=[dict(c) for c in message.tool_calls]
                    ),
                    *[
                        entry("tool", name, text_of(a.content), tool=a.name, ok=False)
                        for a in answers
                    ],
                ],
            },
            goto=TOOLS,
        )

    def _refused(self, agent: str, call: BadCall, config: RunnableConfig) -> ToolMessage:
        """The error answer to a call whose arguments could not be parsed (recorded, reported)."""
        error = unparseable(call.name, call.raw, call.problem_text)
        run = record_refusal(self.deps.context, agent, call.name, call.raw, error)
        emit(
            ToolFinished(
                thread_id=thread_of(config),
                agent=agent,
                tool=call.name,
                tool_call_id=call.id,
                ok=False,
                duration_s=0.0,
                store_call_id=run.store_call_id,
                error=run.content,
                error_kind="invalid_arguments",
            )
        )
        return ToolMessage(run.content, tool_call_id=call.id, name=call.name, status="error")
