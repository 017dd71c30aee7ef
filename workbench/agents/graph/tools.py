"""The tool node: runs the active specialist's pending tool calls, then hands back to it, or ends
the hand-off early when a guard trips (the same call again, too many malformed calls, one tool
failing again and again).

Tool calls that need a person (a clarification, or a confirmation for a physical action or files
outside the workspace) are LangGraph interrupts, all raised before any tool of the reply runs,
because a resumed node runs again from its start.

A person's Cancel of a job a call started ends the run there. The jobs bar publishes
`JobCancelRequested` when a person presses Cancel. While a tool call runs, a `JobWatch` notes the
jobs that call starts (a context variable marks the call: the registry runs a synchronous tool in
a thread that copies the context, and a job publishes `JobStarted` from the thread that submits
it) and which of them a person asked to cancel. The watch also sets core's `CURRENT_TOOL_CALL` to
the call's id, so the `JobStarted` of every job the call starts names the call (`tool_call_id`):
the chat's card of that call shows the job's progress. A field on the event, rather than an agent
event, because a job's publisher (the job runner, the HPC plugin's monitor) reaches the GUI
through the bus, not through the agent's stream. A stopped run cancels the jobs its running call
started.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Sequence
from contextvars import ContextVar, Token
from dataclasses import replace
from typing import Any, Self

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolCall, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, interrupt

from workbench.agents.events import ToolFinished, ToolStarted
from workbench.agents.graph.model import id_of, text_of
from workbench.agents.graph.run import USER_CANCELLED, emit, report, stopped_by_user, thread_of
from workbench.agents.graph.state import (
    MAX_FAILED_IN_A_ROW,
    MAX_IDENTICAL_CALLS,
    SPECIALIST,
    AgentState,
    GraphDeps,
    entry,
)
from workbench.agents.hitl import parse_clarification, parse_confirmation
from workbench.agents.toolbridge import (
    CLARIFY,
    ToolRun,
    clarification_question,
    record_refusal,
    run_tool,
)
from workbench.core.call_jobs import ToolCallJobs
from workbench.core.context import AppContext
from workbench.core.events import CURRENT_TOOL_CALL, EventBus, JobCancelRequested, JobStarted
from workbench.core.tools import ToolError


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


# -- one call: whether it needs a person first, and running it with the person's decision ----------


def human_request(
    context: AppContext, agent: str, allowed: list[str], call: ToolCall
) -> dict[str, Any] | None:
    """The interrupt payload when the call needs a person, else None."""
    if call["name"] == CLARIFY and CLARIFY in allowed:
        question = clarification_question(call["args"])
        if question:
            return {"kind": "clarification", "agent": agent, "question": question}
        return None
    registry = context.registry
    tool = registry.get(call["name"])
    if tool is None or call["name"] not in allowed:
        return None
    # a physical action, or files outside the workspace; None too for a call the registry
    # would reject anyway (no point asking a person about it)
    needed = registry.confirmation_needed(tool.name, call["args"])
    if needed is None:
        return None
    files = "".join(f"\n  {path}" for path in needed.paths)
    where = f" It uses files outside the workspace:{files}\n" if files else " "
    shown = needed.message.splitlines()[1:]  # the tool's account of this call (and the files)
    if shown and not files:
        where = "\n" + "\n".join(shown) + "\n"
    return {
        "kind": "confirmation",
        "agent": agent,
        "tool": tool.name,
        "arguments": call["args"],
        "question": f"{agent} wants to run {tool.name} ({tool.side_effect.value}): "
        f"{tool.description}{where}Allow it?",
    }


async def run_call(
    context: AppContext,
    agent: str,
    allowed: list[str],
    call: ToolCall,
    decisions: dict[str, Any],
) -> ToolRun:
    """Run the call; `decisions` holds the person's answers by call id (from the interrupts)."""
    call_id = id_of(call)
    if call["name"] == CLARIFY and CLARIFY in allowed:
        if call_id in decisions:
            return ToolRun(CLARIFY, True, parse_clarification(decisions[call_id]), 0.0)
        error = ToolError(
            tool=CLARIFY,
            kind="invalid_arguments",
            message=f"{CLARIFY} needs a question.",
            hint='Call it as {"clarification_request": "<one clear question>"}.',
        )
        return record_refusal(context, agent, CLARIFY, call["args"], error)
    if call_id not in decisions:
        return await run_tool(context, agent, call["name"], call["args"], allowed)
    decision = parse_confirmation(decisions[call_id])
    run = await run_tool(
        context, agent, call["name"], call["args"], allowed, confirmed=decision.approved
    )
    if decision.approved:
        return run
    because = f" ({decision.reason})" if decision.reason else ""
    return replace(
        run,
        content=f"The engineer declined to run {call['name']}{because}. Do not call it "
        "again for this task; report what you would have done instead.",
    )


# -- guards that end a hand-off early, read from the specialist's own messages ---------------------


def call_key(call: ToolCall) -> str:
    """A tool call's name and arguments, equal for identical calls."""
    return call["name"] + json.dumps(call["args"], sort_keys=True, default=str)


def repeated_call(work: Sequence[BaseMessage], pending: list[ToolCall]) -> ToolCall | None:
    """A pending call that already succeeded, identically, MAX_IDENTICAL_CALLS - 1 times: running
    it again can only give the same answer (malformed calls have their own retry budget)."""
    succeeded = {
        message.tool_call_id
        for message in work
        if isinstance(message, ToolMessage) and message.status == "success"
    }
    made = Counter(
        call_key(call)
        for message in work
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call["id"] in succeeded
    )
    return next((call for call in pending if made[call_key(call)] >= MAX_IDENTICAL_CALLS - 1), None)


def failing_streak(work: Sequence[BaseMessage]) -> tuple[str, int, str]:
    """The tool of the latest results if they all failed, how many in a row, its last error."""
    tool, count, last_error = "", 0, ""
    for message in reversed(work):
        if not isinstance(message, ToolMessage):
            continue
        if message.status != "error" or (tool and message.name != tool):
            break
        tool, count = message.name or "", count + 1
        last_error = last_error or text_of(message.content)
    return tool, count, last_error


# -- a person's Cancel of a job that a tool call started -------------------------------------------


_WATCH: ContextVar[JobWatch | None] = ContextVar("workbench_tool_call_jobs", default=None)


class JobWatch(ToolCallJobs):
    """Within the block: the jobs this tool call starts, and the ones a person cancelled."""

    def __init__(self, bus: EventBus, tool_call_id: str = "") -> None:
        super().__init__(bus)
        self.tool_call_id = tool_call_id
        self._call_token: Token[str] | None = None
        self._cancelled_by_person: set[str] = set()
        self._token: Token[JobWatch | None] | None = None

    def __enter__(self) -> Self:
        self._token = _WATCH.set(self)
        self._call_token = CURRENT_TOOL_CALL.set(self.tool_call_id)
        return super().__enter__()

    def __exit__(self, *exc: Any) -> None:
        super().__exit__(*exc)  # the reverse of __enter__: unsubscribe, then unmark the call
        if self._call_token is not None:
            CURRENT_TOOL_CALL.reset(self._call_token)
        if self._token is not None:
            _WATCH.reset(self._token)

    def _is_ours(self, event: JobStarted) -> bool:
        # delivered in the publishing thread: its context tells whose call submitted the job
        return _WATCH.get() is self

    def _listen(self) -> list[Callable[[], None]]:
        return [self._bus.subscribe(JobCancelRequested, self._on_cancel_requested)]

    def _on_cancel_requested(self, event: JobCancelRequested) -> None:
        with self._lock:
            if event.job_id in self._started:
                self._cancelled_by_person.add(event.job_id)

    @property
    def cancelled_by_person(self) -> bool:
        """A person pressed Cancel on one of this call's jobs."""
        with self._lock:
            return bool(self._cancelled_by_person)


def user_cancelled_text(tool: str) -> str:
    """What the model hears instead of the tool's own failure (which invites a rerun)."""
    return (
        f"The user cancelled this {tool} call (Cancel in the jobs bar), which also stopped the "
        "run; nothing it would have produced was kept. Do not call it again and do not go on "
        "with the task: wait for the user's next message."
    )


def not_run_text(tool: str) -> str:
    """The answer to a call of the same reply that came after the cancelled one."""
    return f"Not run: the user stopped the run by cancelling {tool} before this call."
