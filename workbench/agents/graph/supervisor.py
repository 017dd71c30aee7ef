"""The supervisor node: it reads the engineer's conversation and the specialists' reports, then
hands the request to one specialist (`transfer_to_<name>`) or answers the engineer.

Unusable replies and unusable hand-offs go back to the model a bounded number of times; handing
the same request to the same specialist too many times in a row stops the turn.

The first hand-off of each request is weighed against the routing prior (workbench.agents.routing:
the request scored against each specialist's description and examples, no large model needed);
decision.py has the rule by which the model confirms or overrides it. Later hand-offs of the same
request ("then export it") are the model's alone: the prior only sees the engineer's words.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any, NamedTuple

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from workbench.agents.events import LoopStopped, Routed
from workbench.agents.graph.model import (
    BadCall,
    Reply,
    call_model,
    closed,
    give_up_text,
    id_of,
    malformed,
    sanitized,
    text_of,
)
from workbench.agents.graph.run import emit, final, thread_of
from workbench.agents.graph.state import SPECIALIST, SUPERVISOR, AgentState, GraphDeps, entry
from workbench.agents.prompts import supervisor_prompt
from workbench.agents.routing.decision import Decision, decide
from workbench.agents.routing.prior import Ranking
from workbench.agents.toolbridge import (
    ToolRun,
    handoff_name,
    record_refusal,
    unknown_tool,
    unparseable,
)
from workbench.core.tools import FieldProblem, ToolError

log = logging.getLogger(__name__)
HANDOFF_PREFIX = "transfer_to_"


class Handoff(NamedTuple):
    specialist: str
    task: str
    call_id: str


class SupervisorNode:
    """The graph node; one per graph, over the graph's deps."""

    def __init__(self, deps: GraphDeps) -> None:
        self.deps = deps

    async def __call__(self, state: AgentState, config: RunnableConfig) -> Command:
        deps = self.deps
        inputs: list[BaseMessage] = [
            SystemMessage(supervisor_prompt(list(deps.specialists.values()))),
            *closed(state.get("messages", [])),
        ]
        if state.get("nudge"):
            inputs.append(HumanMessage(state["nudge"]))
        reply = await call_model(deps, SUPERVISOR, inputs, config)
        if reply.message is None or not reply.usable:
            retries = state.get("retries", deps.max_retries)
            left, nudge = malformed(SUPERVISOR, reply, retries, config)
            if left > 0:
                return Command(update={"retries": left, "nudge": nudge}, goto=SUPERVISOR)
            return final(give_up_text(deps, reply), "gave_up", config, {"retries": 0})
        message, bad = sanitized(reply.message)
        target, answers = self._sorted_calls(message, bad)
        ranking = await self._ranking(state)
        decision = decide(ranking, target.specialist if target else "")
        if not message.tool_calls and not decision.specialist:
            return final(text_of(message.content), "answered", config)
        said = message  # what the model said goes to the transcript, whoever decided
        if decision.specialist and (target is None or decision.specialist != target.specialist):
            # the prior's choice: the engineer's own words go to it, as the model's task was
            # written for another specialist (or could not be read, or there was none)
            call_id = target.call_id if target else _first_call_id(message)
            target = Handoff(decision.specialist, _request_of(state), call_id)
            message, answers = _as_handoff(message, target), []
        elif target is not None and ranking is not None:  # the model's pick, with the prior
            target = target._replace(task=_with_request(target.task, _request_of(state)))
            message = _as_handoff(message, target, keep_others=True)
        update: dict[str, Any] = {
            "messages": [message, *answers],
            "nudge": "",
            "transcript": [
                entry(
                    "assistant",
                    SUPERVISOR,
                    text_of(said.content),
                    tool_calls=[dict(c) for c in said.tool_calls],
                ),
                *[
                    entry("tool", SUPERVISOR, text_of(a.content), tool=a.name, ok=False)
                    for a in answers
                ],
            ],
        }
        if target is None:  # every call was unusable: the model hears why and tries again
            return self._no_usable_handoff(state, message, update, config)
        return self._route(state, target, update, config, decision)

    async def _ranking(self, state: AgentState) -> Ranking | None:
        """The prior's ranking for the request's first hand-off; None when the prior has no say
        (none installed, one specialist, a later hand-off) or fails (then the model decides)."""
        prior, specialists = self.deps.prior, list(self.deps.specialists.values())
        if prior is None or len(specialists) < 2 or state.get("last_routed"):
            return None
        request = _request_of(state)
        if not request.strip():
            return None
        try:  # off the event loop: the first call loads the embedder (seconds)
            return await asyncio.to_thread(prior.rank, request, specialists)
        except Exception:
            log.exception("the routing prior failed; the model routes alone")
            return None

    def _sorted_calls(
        self, message: AIMessage, bad: dict[str, BadCall]
    ) -> tuple[Handoff | None, list[ToolMessage]]:
        """The first usable hand-off, and error answers for every other call."""
        answers: list[ToolMessage] = []
        target: Handoff | None = None
        for call in message.tool_calls:
            run = self._refusal(call, bad, target is not None)
            if run is None:
                specialist = call["name"].removeprefix(HANDOFF_PREFIX)
                target = Handoff(specialist, call["args"]["task"], id_of(call))
                continue
            answers.append(
                ToolMessage(run.content, tool_call_id=call["id"], name=call["name"], status="error")
            )
        return target, answers

    def _refusal(self, call: ToolCall, bad: dict[str, BadCall], taken: bool) -> ToolRun | None:
        """Why a supervisor tool call cannot be followed (recorded), or None if it can."""
        context = self.deps.context
        name, arguments, call_id = call["name"], call["args"], id_of(call)
        if call_id in bad:
            error = unparseable(name, bad[call_id].raw, bad[call_id].problem_text)
            return record_refusal(context, SUPERVISOR, name, bad[call_id].raw, error)
        specialist = name.removeprefix(HANDOFF_PREFIX)
        if not name.startswith(HANDOFF_PREFIX) or specialist not in self.deps.specialists:
            error = unknown_tool(SUPERVISOR, name, self.deps.allowed[SUPERVISOR])
            return record_refusal(context, SUPERVISOR, name, arguments, error)
        task = arguments.get("task")
        if not isinstance(task, str) or not task.strip():
            error = ToolError(
                tool=name,
                kind="invalid_arguments",
                message=f"{name} needs a task instruction.",
                hint='Call it again as {"task": "<what the specialist should do>"}.',
                problems=[
                    FieldProblem(
                        field="task",
                        constraint="missing" if task is None else "string_type",
                        message="a non-empty string is required",
                        input=task,
                    )
                ],
            )
            return record_refusal(context, SUPERVISOR, name, arguments, error)
        if taken:
            return ToolRun(
                name,
                False,
                "Skipped: one specialist at a time. Hand over again after the current report.",
                0.0,
            )
        return None

    def _no_usable_handoff(
        self, state: AgentState, message: AIMessage, update: dict[str, Any], config: RunnableConfig
    ) -> Command:
        problem = Reply(message, "invalid_handoff", "no usable hand-off")
        retries = state.get("retries", self.deps.max_retries)
        left, _ = malformed(SUPERVISOR, problem, retries, config)
        if left > 0:
            return Command(update={**update, "retries": left}, goto=SUPERVISOR)
        return final(
            give_up_text(self.deps, Reply(None, "invalid_handoff", "no usable hand-off")),
            "gave_up",
            config,
            {**update, "retries": 0},
        )

    def _route(
        self,
        state: AgentState,
        target: Handoff,
        update: dict[str, Any],
        config: RunnableConfig,
        decision: Decision,
    ) -> Command:
        """Hand over to the target specialist, unless it had this request too often in a row."""
        name, task, call_id = target
        max_routes = self.deps.max_routes
        streak = state.get("streak", 0) + 1 if state.get("last_routed") == name else 1
        if streak > max_routes:
            refusal = ToolMessage(
                f"Refused: {name} already had this request {max_routes} times in a row.",
                tool_call_id=call_id,
                name=handoff_name(name),
                status="error",
            )
            emit(
                LoopStopped(
                    thread_id=thread_of(config),
                    agent=SUPERVISOR,
                    specialist=name,
                    routes=streak - 1,
                )
            )
            text = (
                f"I stopped: the request went to the {name} specialist {max_routes} times in "
                "a row without being finished. Please rephrase it or split it into smaller steps."
            )
            update["messages"].append(refusal)
            return final(text, "loop_stopped", config, update)
        emit(
            Routed(
                thread_id=thread_of(config),
                agent=SUPERVISOR,
                specialist=name,
                task=task,
                how=decision.how,
                proposed=decision.proposed,
                prior=decision.scores,
            )
        )
        update["transcript"].append(
            entry("handoff", SUPERVISOR, task, specialist=name, how=decision.how)
        )
        return Command(
            update={
                **update,
                "active": name,
                "task": task,
                "handoff_id": call_id,
                "work": [],
                "last_routed": name,
                "streak": streak,
                "work_retries": self.deps.max_retries,
                "reply_malformed": False,
            },
            goto=SPECIALIST,
        )


def _request_of(state: AgentState) -> str:
    """The engineer's latest message."""
    for message in reversed(state.get("messages", [])):
        if isinstance(message, HumanMessage):
            return text_of(message.content)
    return ""


def _first_call_id(message: AIMessage) -> str:
    """The id the prior's hand-off takes: the model's first call's, or a new one."""
    if message.tool_calls:
        return id_of(message.tool_calls[0])
    return f"call_{uuid.uuid4().hex[:12]}"


def _with_request(task: str, request: str) -> str:
    """The model's task instruction with the engineer's own words: a small model's instruction
    can be garbled ("tranfrm_tos_hpc"), and the request is what the specialist must do."""
    if not request.strip() or request.strip() in task:
        return task
    return f"{task}\n\nThe engineer's request: {request}"


def _as_handoff(message: AIMessage, target: Handoff, keep_others: bool = False) -> AIMessage:
    """The supervisor's reply as the hand-off that is followed (its other calls kept, answered
    as refused, if `keep_others`), so the conversation the model reads next shows the call the
    specialist's report answers."""
    call = ToolCall(
        name=handoff_name(target.specialist),
        args={"task": target.task},
        id=target.call_id,
        type="tool_call",
    )
    others = [c for c in message.tool_calls if id_of(c) != target.call_id] if keep_others else []
    return AIMessage(
        content=message.content,
        tool_calls=[call, *others],
        id=message.id,
        name=message.name,
        usage_metadata=message.usage_metadata,
        response_metadata=message.response_metadata,
    )
