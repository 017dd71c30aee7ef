"""What a run of the agent reports while it works: the chat panel renders these, the bench
records them.

They subclass the core `Event`, so a runtime may also publish them on the app's bus. Every event
names its conversation (`thread_id`) and the agent that produced it ("supervisor" or a specialist).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from workbench.core.events import Event


class AgentEvent(Event):
    source: str = "agents"
    thread_id: str = ""
    agent: str = ""


class RunStarted(AgentEvent):
    model: str
    text: str = ""  # the user's message; empty when resuming


class Token(AgentEvent):
    """A piece of streamed model text (may be discarded by a later ModelError)."""

    text: str


class Routed(AgentEvent):
    """The supervisor handed the request to a specialist with a task instruction; `how` says
    who decided (workbench.agents.routing.decision): "confirmed", "overridden", "kept", "alone"
    or "model", `proposed` is the specialist the model named and `prior` the prior's scores."""

    specialist: str
    task: str
    how: str = "model"
    proposed: str = ""
    prior: dict[str, float] = Field(default_factory=dict)


class ToolStarted(AgentEvent):
    tool: str
    tool_call_id: str
    arguments: Any = None


class ToolFinished(AgentEvent):
    tool: str
    tool_call_id: str
    ok: bool
    duration_s: float
    store_call_id: int | None = None  # row in the workspace store's tool_calls
    result: dict[str, Any] | None = None
    error: str = ""  # ToolError.explain(), as the model saw it
    error_kind: str = ""


class InterruptRequested(AgentEvent):
    """The run waits for a person: a question to answer or a tool call to confirm."""

    interrupt_id: str
    kind: Literal["clarification", "confirmation"]
    question: str
    tool: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)


class ModelCalled(AgentEvent):
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    latency_s: float = 0.0
    problem: str = ""  # e.g. "empty_message", "invalid_tool_call" (the reply was malformed)


class Malformed(AgentEvent):
    """The model's reply could not be used as it was; it was told why and may retry."""

    problem: str
    detail: str
    retries_left: int


class LoopStopped(AgentEvent):
    specialist: str
    routes: int


class AgentError(AgentEvent):
    """The run stopped; `message` says what went wrong and what to do. The conversation is kept."""

    kind: str  # model_unreachable, model_error, recursion, budget, internal, cancelled
    message: str


class FinalAnswer(AgentEvent):
    text: str


class RunFinished(AgentEvent):
    status: Literal["done", "stopped", "interrupted", "error", "cancelled"]
    totals: dict[str, Any] = Field(default_factory=dict)
