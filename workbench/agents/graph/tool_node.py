"""The tool node: runs the active specialist's pending tool calls, then hands back to it, or ends
the hand-off early when a guard trips (the same call again, too many malformed calls, one tool
failing again and again).

Tool calls that need a person are LangGraph interrupts, all raised before any tool of the reply
runs, because a resumed node runs again from its start. A person's Cancel of a job a call started
ends the run there (see `cancels`); a stopped run cancels the jobs its running call started.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolCall, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, interrupt

from workbench.agents.events import ToolFinished, ToolStarted
from workbench.agents.graph.cancels import (
    USER_CANCELLED,
    JobWatch,
    not_run_text,
    user_cancelled_text,
)
from workbench.agents.graph.deps import GraphDeps
from workbench.agents.graph.endings import report, stopped_by_user
from workbench.agents.graph.guards import failing_streak, repeated_call
from workbench.agents.graph.messages import id_of
from workbench.agents.graph.state import (
    MAX_FAILED_IN_A_ROW,
    MAX_IDENTICAL_CALLS,
    SPECIALIST,
    AgentState,
    entry,
)
from workbench.agents.graph.stream import emit, thread_of
from workbench.agents.graph.tool_calls import human_request, run_call
from workbench.agents.toolbridge import ToolRun


def pending_calls(work: list[AnyMessage]) -> list[ToolCall]:
    """The latest reply's tool calls that have no answer yet (unparseable ones were answered
    by the specialist node)."""
    for last in range(len(work) - 1, -1, -1):
        request = work[last]
        if isinstance(request, AIMessage):
            answered = {m.tool_call_id for m in work[last + 1 :] if isinstance(m, ToolMessage)}
            return [c for c in request.tool_calls if c["id"] not in answered]
    raise ValueError("the tool node runs after a reply with tool calls, and there is none")


class ToolNode:
    """The graph node; one per graph, over the graph's deps."""

    def __init__(self, deps: GraphDeps) -> None:
        self.deps = deps

    async def __call__(self, state: AgentState, config: RunnableConfig) -> Command:
        name = state["active"]
        allowed = self.deps.allowed[name]
        work = list(state["work"])
        pending = pending_calls(work)
        repeated = repeated_call(work, pending)
        if repeated is not None:
            text = (
                f"{name} stopped: it asked for {repeated['name']} with the same arguments "
                f"{MAX_IDENTICAL_CALLS} times in one task ({json.dumps(repeated['args'])}). "
                "The earlier results are above; decide whether to re-route with clearer "
                "instructions or answer."
            )
            return report(state, text, work)

        # 1. every question first: nothing has run yet when a resumed node starts over
        decisions: dict[str, Any] = {}
        for call in pending:
            request = human_request(self.deps.context, name, allowed, call)
            if request is not None:
                decisions[id_of(call)] = interrupt(request)

        # 2. then run, in the order the model asked
        answers: list[ToolMessage] = []
        transcript: list[dict[str, Any]] = []
        malformed_reply = state.get("reply_malformed", False)
        for index, call in enumerate(pending):
            run, cancelled = await self._run_one(name, allowed, call, decisions, config)
            malformed_reply = malformed_reply or run.malformed
            status = "success" if run.ok else "error"
            answers.append(
                ToolMessage(run.content, tool_call_id=call["id"], name=call["name"], status=status)
            )
            transcript.append(_tool_entry(name, call, run, cancelled))
            if cancelled:  # the person's Cancel: the rest of the reply is not run either
                answers += [
                    ToolMessage(
                        not_run_text(call["name"]),
                        tool_call_id=later["id"],
                        name=later["name"],
                        status="error",
                    )
                    for later in pending[index + 1 :]
                ]
                return stopped_by_user(state, call["name"], [*work, *answers], transcript)
        return self._after_round(state, [*work, *answers], transcript, malformed_reply)

    async def _run_one(
        self,
        agent: str,
        allowed: list[str],
        call: ToolCall,
        decisions: dict[str, Any],
        config: RunnableConfig,
    ) -> tuple[ToolRun, bool]:
        """Run one call between a ToolStarted and a ToolFinished event; True with it when a
        person cancelled the job the call started (the model then hears that instead)."""
        thread_id = thread_of(config)
        emit(
            ToolStarted(
                thread_id=thread_id,
                agent=agent,
                tool=call["name"],
                tool_call_id=id_of(call),
                arguments=call["args"],
            )
        )
        context = self.deps.context
        with JobWatch(context.bus, id_of(call)) as watch:
            try:
                run = await run_call(context, agent, allowed, call, decisions)
            except asyncio.CancelledError:  # the run was stopped: so is the work it started
                watch.cancel_jobs(context.jobs)
                raise
        cancelled = watch.cancelled_by_person and not run.ok
        if cancelled:
            run = replace(run, content=user_cancelled_text(call["name"]))
        error_kind = USER_CANCELLED if cancelled else (run.error.kind if run.error else "")
        emit(
            ToolFinished(
                thread_id=thread_id,
                agent=agent,
                tool=call["name"],
                tool_call_id=id_of(call),
                ok=run.ok,
                duration_s=run.duration_s,
                store_call_id=run.store_call_id,
                result=run.result,
                error="" if run.ok else run.content,
                error_kind=error_kind,
            )
        )
        return run, cancelled

    def _after_round(
        self,
        state: AgentState,
        work: Sequence[BaseMessage],
        transcript: list[dict[str, Any]],
        malformed_reply: bool,
    ) -> Command:
        """Back to the specialist, or its report when it used up its malformed calls or one tool
        keeps failing."""
        name = state["active"]
        max_retries = self.deps.max_retries
        left = state.get("work_retries", max_retries) - (1 if malformed_reply else 0)
        if left <= 0:
            text = (
                f"{name} gave up: {max_retries} of its tool calls were malformed "
                "(see the tool errors above)."
            )
            return report(state, text, work, transcript)
        tool, streak, error = failing_streak(work)
        if streak >= MAX_FAILED_IN_A_ROW:
            text = (
                f"{name} stopped: {tool} failed {streak} times in a row. The last error: "
                f"{error} Re-route with what was missing, or answer."
            )
            return report(state, text, work, transcript)
        return Command(
            update={
                "work": work,
                "transcript": transcript,
                "work_retries": left,
                "reply_malformed": False,
            },
            goto=SPECIALIST,
        )


def _tool_entry(agent: str, call: ToolCall, run: ToolRun, cancelled: bool) -> dict[str, Any]:
    """The transcript entry of one call (the chat shows it again when the conversation opens)."""
    kind = USER_CANCELLED if cancelled else (run.error.kind if run.error else "")
    return entry(
        "tool",
        agent,
        run.content,
        tool=call["name"],
        ok=run.ok,
        arguments=call["args"],
        store_call_id=run.store_call_id,
        error_kind=kind,
    )
