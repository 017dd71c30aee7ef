"""The supervisor/specialist graph (LangGraph StateGraph, one graph per workspace).

supervisor --transfer_to_<name>(task)--> specialist <--> tools
     ^                                        |
     +------------- report (ToolMessage) -----+

The supervisor sees only the engineer's conversation and the specialists' reports; a specialist
sees its prompt, its task and its own short tool list. Malformed replies (bad JSON, unknown tools,
wrong or missing arguments, empty messages) go back to the model as error messages, a bounded
number of times, and never raise. Tool calls that need a person (`ask_human_for_clarification`,
tools with `Tool.confirm`, files outside the workspace: `ToolRegistry.confirmation_needed`) are
LangGraph interrupts, all raised before any tool of that reply runs,
because a resumed node runs again from its start.
"""

from __future__ import annotations

import json
import operator
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, TypedDict

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, interrupt

from workbench.agents import prompts
from workbench.agents.accounting import AgentLog, usage_of
from workbench.agents.events import (
    FinalAnswer,
    LoopStopped,
    Malformed,
    ModelCalled,
    Routed,
    Token,
    ToolFinished,
    ToolStarted,
)
from workbench.agents.hitl import parse_clarification, parse_confirmation
from workbench.agents.toolbridge import (
    CLARIFY,
    ToolRun,
    clarification_question,
    handoff_name,
    handoff_schema,
    record_refusal,
    run_tool,
    schemas_for,
    unknown_tool,
    unparseable,
)
from workbench.core.context import AppContext
from workbench.core.plugins import Specialist
from workbench.core.tools import FieldProblem, ToolError

SUPERVISOR = "supervisor"
MAX_CONSECUTIVE_ROUTES = 3  # a 4th hand-off in a row to the same specialist stops the run
MAX_RETRIES = 3  # malformed replies allowed per agent and request (per hand-off for specialists)
MAX_IDENTICAL_CALLS = 3  # the same tool call with the same arguments, per hand-off: small models
# otherwise repeat one call until the step limit and lose the whole turn
MAX_FAILED_IN_A_ROW = 3  # one tool failing this many times running ends the hand-off (a small
# model otherwise retries a refused call with new arguments until its context is full)


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]  # the supervisor's conversation
    transcript: Annotated[list[dict[str, Any]], operator.add]  # everything, for export
    active: str  # specialist at work ("" when none)
    task: str
    handoff_id: str  # the transfer call the active specialist's report answers
    work: list[AnyMessage]  # the active specialist's own messages, replaced per hand-off
    last_routed: str
    streak: int  # consecutive hand-offs to last_routed in this request
    retries: int  # supervisor's malformed replies left
    work_retries: int  # active specialist's malformed replies left
    reply_malformed: bool
    nudge: str  # told to the next model call after a malformed reply
    outcome: str  # "answered", "loop_stopped", "gave_up"


def entry(role: str, agent: str, content: str, **extra: Any) -> dict[str, Any]:
    return {"role": role, "agent": agent, "content": content, "time": time.time(), **extra}


def turn_input(text: str, max_retries: int = MAX_RETRIES) -> dict[str, Any]:
    """State update for a new message from the engineer (guards and scratch reset)."""
    return {
        "messages": [HumanMessage(text)],
        "transcript": [entry("user", "user", text)],
        "active": "",
        "work": [],
        "last_routed": "",
        "streak": 0,
        "retries": max_retries,
        "work_retries": max_retries,
        "reply_malformed": False,
        "nudge": "",
        "outcome": "",
    }


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str) or block.get("type") == "text"
        )
    return str(content or "")


def closed(messages: list[BaseMessage]) -> list[BaseMessage]:
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
            pending = {call["id"] or "": call["name"] for call in message.tool_calls}
    flush()
    return out


def call_key(call: dict[str, Any]) -> str:
    return call["name"] + json.dumps(call["args"], sort_keys=True, default=str)


def repeated_call(work: list[BaseMessage], pending: list[dict[str, Any]]) -> dict | None:
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


def failing_streak(work: list[BaseMessage]) -> tuple[str, int, str]:
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


@dataclass
class Reply:
    message: AIMessage | None
    problem: str = ""
    detail: str = ""

    @property
    def usable(self) -> bool:
        return self.message is not None and self.problem not in ("unparseable", "empty_message")


@dataclass(frozen=True)
class BadCall:
    id: str
    name: str
    raw: Any
    problem: str


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


def _problem_text(bad: BadCall) -> str:
    return (bad.problem or "not valid JSON").splitlines()[0][:200]


@dataclass
class GraphDeps:
    context: AppContext
    model: BaseChatModel
    model_name: str
    specialists: dict[str, Specialist]
    log: AgentLog
    max_routes: int = MAX_CONSECUTIVE_ROUTES
    max_retries: int = MAX_RETRIES
    allowed: dict[str, list[str]] = field(init=False)
    bound: dict[str, Runnable] = field(init=False)

    def __post_init__(self) -> None:
        registry = self.context.registry
        self.allowed = {
            name: [t for t in spec.tools if t == CLARIFY or registry.get(t) is not None]
            for name, spec in self.specialists.items()
        }
        handoffs = [handoff_schema(s.name, s.description) for s in self.specialists.values()]
        self.allowed[SUPERVISOR] = [handoff_name(name) for name in self.specialists]
        self.bound = {SUPERVISOR: self._bind(handoffs)}
        for name in self.specialists:
            self.bound[name] = self._bind(schemas_for(self.context, self.allowed[name]))

    def _bind(self, schemas: list[dict[str, Any]]) -> Runnable:
        return self.model.bind_tools(schemas) if schemas else self.model


def build_graph(deps: GraphDeps) -> StateGraph:
    """The uncompiled graph; the runtime compiles it with a checkpointer per run."""

    def emit(event: Any) -> None:
        get_stream_writer()(event)

    def ids(config: RunnableConfig) -> tuple[str, int | None]:
        configurable = config.get("configurable", {})
        return str(configurable.get("thread_id", "")), configurable.get("run_id")

    async def call_model(agent: str, messages: list[BaseMessage], config: RunnableConfig) -> Reply:
        thread_id, run_id = ids(config)
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
            if message is None or not (
                text_of(message.content).strip() or message.tool_calls or message.invalid_tool_calls
            ):
                problem, detail = "empty_message", "no text and no tool call"
            elif message.invalid_tool_calls:
                problem, detail = "invalid_tool_call", "tool call arguments are not valid JSON"
        tokens = usage_of(message) if message is not None else usage_of(None)
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

    def final(
        text: str, outcome: str, config: RunnableConfig, extra: dict | None = None
    ) -> Command:
        emit(FinalAnswer(thread_id=ids(config)[0], agent=SUPERVISOR, text=text))
        update = dict(extra or {})
        update["messages"] = [*update.get("messages", []), AIMessage(text, name=SUPERVISOR)]
        update["transcript"] = [
            *update.get("transcript", []),
            entry("assistant", SUPERVISOR, text, final=True),
        ]
        return Command(update={**update, "outcome": outcome, "nudge": ""}, goto=END)

    def report(
        state: AgentState, text: str, config: RunnableConfig, work: list[BaseMessage]
    ) -> Command:
        """The active specialist's result goes back to the supervisor as the hand-off's answer."""
        name = state["active"]
        text = text.strip() or f"({name} finished without a report.)"
        answer = ToolMessage(text, tool_call_id=state["handoff_id"], name=handoff_name(name))
        return Command(
            update={
                "messages": [answer],
                "work": work,
                "active": "",
                "nudge": "",
                "transcript": [entry("report", name, text)],
            },
            goto=SUPERVISOR,
        )

    def malformed(
        state: AgentState, agent: str, reply: Reply, config: RunnableConfig, counter: str
    ) -> tuple[int, str]:
        left = state.get(counter, deps.max_retries) - 1
        emit(
            Malformed(
                thread_id=ids(config)[0],
                agent=agent,
                problem=reply.problem,
                detail=reply.detail,
                retries_left=max(left, 0),
            )
        )
        return left, prompts.nudge_for(reply.problem, reply.detail)

    # -- supervisor -----------------------------------------------------------------------------
    async def supervisor(state: AgentState, config: RunnableConfig) -> Command:
        thread_id = ids(config)[0]
        inputs: list[BaseMessage] = [
            SystemMessage(prompts.supervisor_prompt(list(deps.specialists.values()))),
            *closed(state.get("messages", [])),
        ]
        if state.get("nudge"):
            inputs.append(HumanMessage(state["nudge"]))
        reply = await call_model(SUPERVISOR, inputs, config)
        if not reply.usable:
            left, nudge = malformed(state, SUPERVISOR, reply, config, "retries")
            if left > 0:
                return Command(update={"retries": left, "nudge": nudge}, goto=SUPERVISOR)
            return final(give_up_text(reply), "gave_up", config, {"retries": 0})
        assert reply.message is not None
        message, bad = sanitized(reply.message)
        if not message.tool_calls:
            return final(text_of(message.content), "answered", config)

        answers: list[ToolMessage] = []
        target: tuple[str, str, str] | None = None
        for call in message.tool_calls:
            run = handoff_problem(call, bad, target is not None)
            if run is None:
                target = (
                    call["name"].removeprefix("transfer_to_"),
                    call["args"]["task"],
                    call["id"],
                )
                continue
            answers.append(
                ToolMessage(run.content, tool_call_id=call["id"], name=call["name"], status="error")
            )
        update: dict[str, Any] = {
            "messages": [message, *answers],
            "nudge": "",
            "transcript": [
                entry(
                    "assistant",
                    SUPERVISOR,
                    text_of(message.content),
                    tool_calls=[dict(c) for c in message.tool_calls],
                ),
                *[entry("tool", SUPERVISOR, a.content, tool=a.name, ok=False) for a in answers],
            ],
        }
        if target is None:  # every call was unusable: the model hears why and tries again
            left, _ = malformed(
                state,
                SUPERVISOR,
                Reply(message, "invalid_handoff", "no usable hand-off"),
                config,
                "retries",
            )
            if left > 0:
                return Command(update={**update, "retries": left}, goto=SUPERVISOR)
            return final(
                give_up_text(Reply(None, "invalid_handoff", "no usable hand-off")),
                "gave_up",
                config,
                {**update, "retries": 0},
            )

        name, task, call_id = target
        streak = state.get("streak", 0) + 1 if state.get("last_routed") == name else 1
        if streak > deps.max_routes:
            refusal = ToolMessage(
                f"Refused: {name} already had this request {deps.max_routes} times in a row.",
                tool_call_id=call_id,
                name=handoff_name(name),
                status="error",
            )
            emit(
                LoopStopped(
                    thread_id=thread_id, agent=SUPERVISOR, specialist=name, routes=streak - 1
                )
            )
            text = (
                f"I stopped: the request went to the {name} specialist {deps.max_routes} times in "
                "a row without being finished. Please rephrase it or split it into smaller steps."
            )
            update["messages"].append(refusal)
            return final(text, "loop_stopped", config, update)
        emit(Routed(thread_id=thread_id, agent=SUPERVISOR, specialist=name, task=task))
        update["transcript"].append(entry("handoff", SUPERVISOR, task, specialist=name))
        return Command(
            update={
                **update,
                "active": name,
                "task": task,
                "handoff_id": call_id,
                "work": [],
                "last_routed": name,
                "streak": streak,
                "work_retries": deps.max_retries,
                "reply_malformed": False,
            },
            goto="specialist",
        )

    def handoff_problem(
        call: dict[str, Any], bad: dict[str, BadCall], taken: bool
    ) -> ToolRun | None:
        """Why a supervisor tool call cannot be followed (recorded), or None if it can."""
        name = call["name"]
        if call["id"] in bad:
            error = unparseable(name, bad[call["id"]].raw, _problem_text(bad[call["id"]]))
            return record_refusal(deps.context, SUPERVISOR, name, bad[call["id"]].raw, error)
        specialist = name.removeprefix("transfer_to_")
        if not name.startswith("transfer_to_") or specialist not in deps.specialists:
            error = unknown_tool(SUPERVISOR, name, deps.allowed[SUPERVISOR])
            return record_refusal(deps.context, SUPERVISOR, name, call["args"], error)
        task = call["args"].get("task")
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
            return record_refusal(deps.context, SUPERVISOR, name, call["args"], error)
        if taken:
            return ToolRun(
                name,
                False,
                "Skipped: one specialist at a time. Hand over again after the current report.",
                0.0,
            )
        return None

    def give_up_text(reply: Reply) -> str:
        return (
            f"I could not get a usable reply from the model after {deps.max_retries} attempts "
            f"(last problem: {reply.problem}, {reply.detail}). Try again or choose another model."
        )

    # -- specialist -----------------------------------------------------------------------------
    async def specialist(state: AgentState, config: RunnableConfig) -> Command:
        name = state["active"]
        spec = deps.specialists[name]
        work = list(state.get("work", []))
        inputs: list[BaseMessage] = [
            SystemMessage(prompts.specialist_prompt(spec)),
            HumanMessage(state["task"]),
            *closed(work),
        ]
        if state.get("nudge"):
            inputs.append(HumanMessage(state["nudge"]))
        reply = await call_model(name, inputs, config)
        if not reply.usable:
            left, nudge = malformed(state, name, reply, config, "work_retries")
            if left > 0:
                return Command(update={"work_retries": left, "nudge": nudge}, goto="specialist")
            return report(
                state, f"{name} could not do the task: " + give_up_text(reply), config, work
            )
        assert reply.message is not None
        message, bad = sanitized(reply.message)
        text = text_of(message.content)
        if not message.tool_calls:
            return report(state, text, config, [*work, message])
        answers = []
        for call_id, call in bad.items():
            error = unparseable(call.name, call.raw, _problem_text(call))
            run = record_refusal(deps.context, name, call.name, call.raw, error)
            emit(
                ToolFinished(
                    thread_id=ids(config)[0],
                    agent=name,
                    tool=call.name,
                    tool_call_id=call_id,
                    ok=False,
                    duration_s=0.0,
                    store_call_id=run.store_call_id,
                    error=run.content,
                    error_kind="invalid_arguments",
                )
            )
            answers.append(
                ToolMessage(run.content, tool_call_id=call_id, name=call.name, status="error")
            )
        return Command(
            update={
                "work": [*work, message, *answers],
                "nudge": "",
                "reply_malformed": bool(bad),
                "transcript": [
                    entry(
                        "assistant", name, text, tool_calls=[dict(c) for c in message.tool_calls]
                    ),
                    *[entry("tool", name, a.content, tool=a.name, ok=False) for a in answers],
                ],
            },
            goto="tools",
        )

    # -- tools ----------------------------------------------------------------------------------
    async def tools(state: AgentState, config: RunnableConfig) -> Command:
        thread_id = ids(config)[0]
        name = state["active"]
        allowed = deps.allowed[name]
        work = list(state["work"])
        last = max(i for i, m in enumerate(work) if isinstance(m, AIMessage))
        answered = {m.tool_call_id for m in work[last + 1 :] if isinstance(m, ToolMessage)}
        pending = [c for c in work[last].tool_calls if c["id"] not in answered]  # type: ignore[union-attr]
        repeated = repeated_call(work, pending)
        if repeated is not None:
            return report(
                state,
                f"{name} stopped: it asked for {repeated['name']} with the same arguments "
                f"{MAX_IDENTICAL_CALLS} times in one task ({json.dumps(repeated['args'])}). "
                "The earlier results are above; decide whether to re-route with clearer "
                "instructions or answer.",
                config,
                work,
            )

        # 1. every question first: nothing has run yet when a resumed node starts over
        decisions: dict[str, Any] = {}
        for call in pending:
            request = human_request(name, allowed, call)
            if request is not None:
                decisions[call["id"]] = interrupt(request)

        # 2. then run, in the order the model asked
        answers: list[ToolMessage] = []
        transcript: list[dict[str, Any]] = []
        malformed_reply = state.get("reply_malformed", False)
        for call in pending:
            emit(
                ToolStarted(
                    thread_id=thread_id,
                    agent=name,
                    tool=call["name"],
                    tool_call_id=call["id"],
                    arguments=call["args"],
                )
            )
            run = await run_call(name, allowed, call, decisions)
            malformed_reply = malformed_reply or run.malformed
            emit(
                ToolFinished(
                    thread_id=thread_id,
                    agent=name,
                    tool=call["name"],
                    tool_call_id=call["id"],
                    ok=run.ok,
                    duration_s=run.duration_s,
                    store_call_id=run.store_call_id,
                    result=run.result,
                    error="" if run.ok else run.content,
                    error_kind=run.error.kind if run.error else "",
                )
            )
            answers.append(
                ToolMessage(
                    run.content,
                    tool_call_id=call["id"],
                    name=call["name"],
                    status="success" if run.ok else "error",
                )
            )
            transcript.append(
                entry(
                    "tool",
                    name,
                    run.content,
                    tool=call["name"],
                    ok=run.ok,
                    arguments=call["args"],
                    store_call_id=run.store_call_id,
                )
            )
        left = state.get("work_retries", deps.max_retries) - (1 if malformed_reply else 0)
        work = [*work, *answers]
        if left <= 0:
            command = report(
                state,
                f"{name} gave up: {deps.max_retries} of its tool calls were malformed "
                "(see the tool errors above).",
                config,
                work,
            )
            command.update["transcript"] = [*transcript, *command.update["transcript"]]
            return command
        tool, streak, error = failing_streak(work)
        if streak >= MAX_FAILED_IN_A_ROW:
            command = report(
                state,
                f"{name} stopped: {tool} failed {streak} times in a row. The last error: "
                f"{error} Re-route with what was missing, or answer.",
                config,
                work,
            )
            command.update["transcript"] = [*transcript, *command.update["transcript"]]
            return command
        return Command(
            update={
                "work": work,
                "transcript": transcript,
                "work_retries": left,
                "reply_malformed": False,
            },
            goto="specialist",
        )

    def human_request(name: str, allowed: list[str], call: dict[str, Any]) -> dict | None:
        if call["name"] == CLARIFY and CLARIFY in allowed:
            question = clarification_question(call["args"])
            if question:
                return {"kind": "clarification", "agent": name, "question": question}
            return None
        registry = deps.context.registry
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
        return {
            "kind": "confirmation",
            "agent": name,
            "tool": tool.name,
            "arguments": call["args"],
            "question": f"{name} wants to run {tool.name} ({tool.side_effect.value}): "
            f"{tool.description}{where}Allow it?",
        }

    async def run_call(
        name: str, allowed: list[str], call: dict[str, Any], decisions: dict[str, Any]
    ) -> ToolRun:
        if call["name"] == CLARIFY and CLARIFY in allowed:
            if call["id"] in decisions:
                return ToolRun(CLARIFY, True, parse_clarification(decisions[call["id"]]), 0.0)
            error = ToolError(
                tool=CLARIFY,
                kind="invalid_arguments",
                message=f"{CLARIFY} needs a question.",
                hint='Call it as {"clarification_request": "<one clear question>"}.',
            )
            return record_refusal(deps.context, name, CLARIFY, call["args"], error)
        if call["id"] not in decisions:
            return await run_tool(deps.context, name, call["name"], call["args"], allowed)
        decision = parse_confirmation(decisions[call["id"]])
        run = await run_tool(
            deps.context, name, call["name"], call["args"], allowed, confirmed=decision.approved
        )
        if decision.approved:
            return run
        because = f" ({decision.reason})" if decision.reason else ""
        return replace(
            run,
            content=f"The engineer declined to run {call['name']}{because}. Do not call it "
            "again for this task; report what you would have done instead.",
        )

    builder = StateGraph(AgentState)
    builder.add_node(SUPERVISOR, supervisor, destinations=(SUPERVISOR, "specialist", END))
    builder.add_node("specialist", specialist, destinations=("specialist", "tools", SUPERVISOR))
    builder.add_node("tools", tools, destinations=("specialist", SUPERVISOR))
    builder.add_edge(START, SUPERVISOR)
    return builder
