"""The graph's state, its limits and node names, the state update a new message from the
engineer starts, and `GraphDeps`: what every node works with (the app, the model bound to each
agent's tools, the specialists, the call log and the limits)."""

from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage, HumanMessage
from langchain_core.runnables import Runnable
from langgraph.graph.message import add_messages

from workbench.agents.accounting import AgentLog
from workbench.agents.routing.prior import RoutingPrior
from workbench.agents.toolbridge import CLARIFY, handoff_name, handoff_schema, schemas_for
from workbench.core.context import AppContext
from workbench.core.plugins import Specialist

SUPERVISOR = "supervisor"  # node names
SPECIALIST = "specialist"
TOOLS = "tools"
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
    outcome: str  # "answered", "loop_stopped", "gave_up", "cancelled_by_user"


def entry(role: str, agent: str, content: str, **extra: Any) -> dict[str, Any]:
    """One transcript entry (what the export shows)."""
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


@dataclass
class GraphDeps:
    """Built once per run by the runtime; `allowed` and `bound` are derived from the rest."""

    context: AppContext
    model: BaseChatModel
    model_name: str
    specialists: dict[str, Specialist]
    log: AgentLog
    max_routes: int = MAX_CONSECUTIVE_ROUTES
    max_retries: int = MAX_RETRIES
    prior: RoutingPrior | None = None  # the supervisor's routing prior (None: the model alone)
    allowed: dict[str, list[str]] = field(init=False)  # tool names per agent
    bound: dict[str, Runnable] = field(init=False)  # the model with each agent's tool schemas

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
