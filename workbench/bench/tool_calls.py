"""What the suites' policies share: the tool call a scorer sees, what a policy's run of a cell
did (`PolicyRun`), the recording caller a direct policy plays through, and the plumbing of an
agent cell (its limits, thread, tool-call pairing, and its events read back as a PolicyRun)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from workbench.bench.suite import AgentBudget
from workbench.core.context import AppContext


@dataclass
class ToolCall:
    """One tool call as the scorer sees it (a direct policy's or an agent's)."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    ok: bool = True
    result: dict[str, Any] | None = None


@dataclass
class PolicyRun:
    """What one policy did in one cell: its tool calls, the texts a scorer may search (tool
    results, streamed and final answers), what its model calls cost, and how its run ended."""

    calls: list[ToolCall] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    model_latency_s: float = 0.0
    model_calls: int = 0
    status: str = "done"
    error: str = ""
    answer: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # a suite's own record of the run


class HarnessFailure(RuntimeError):
    """The harness, not the policy, failed (no model, no cluster, a tool crashed)."""


class RecordingToolCaller:
    """Calls tools through the registry, as the agent and the GUI do, and records each call.
    A direct policy's calls are meant to succeed: a failed one is a harness failure.
    `confirmed`: the confirmation a person gives headless (`--yes`)."""

    def __init__(self, app: AppContext, caller: str, confirmed: bool = False) -> None:
        self.app, self.caller, self.confirmed = app, caller, confirmed
        self.calls: list[ToolCall] = []
        self.texts: list[str] = []  # each result as JSON, for scorers that search the text

    def offered(self, name: str) -> bool:
        return self.app.registry.get(name) is not None

    def __call__(self, name: str, **args: Any) -> dict[str, Any]:
        outcome = self.app.registry.call(name, args, caller=self.caller, confirmed=self.confirmed)
        self.calls.append(ToolCall(name, args, outcome.ok, outcome.result))
        if not outcome.ok:
            detail = outcome.error.explain() if outcome.error else "failed"
            raise HarnessFailure(f"{self.caller}: {name} failed: {detail}")
        result = outcome.result or {}
        self.texts.append(json.dumps(result, default=str))
        return result


def is_direct(model: str) -> bool:
    """The reference and its off-target variants play tool calls directly; any other model
    spec is an agent."""
    return model == "reference" or model.startswith("offtarget:")


def agent_limits(budget: AgentBudget | None, default_model_calls: int) -> dict[str, Any]:
    """The runner's budget for this cell (the smoke selection's short one), else the suite's."""
    if budget is None:
        return {"max_model_calls": default_model_calls}
    return {
        "max_model_calls": budget.model_calls,
        "max_tokens": budget.tokens,
        "max_seconds": budget.seconds,
    }


def bench_thread_id() -> str:
    """A fresh agent thread per cell: no cell sees another's conversation."""
    return f"bench-{uuid.uuid4().hex[:12]}"


class ToolCallPairing:
    """Pairs an agent run's ToolStarted and ToolFinished events into ToolCalls (hand-offs to
    specialists are routing, not tool calls)."""

    def __init__(self) -> None:
        self._arguments: dict[str, Any] = {}

    def started(self, call_id: str, tool: str, arguments: Any) -> None:
        if not tool.startswith("transfer_to_"):
            self._arguments[call_id] = arguments

    def finished(
        self, call_id: str, tool: str, ok: bool, result: dict[str, Any] | None
    ) -> ToolCall | None:
        """The finished call, or None when its start was not recorded."""
        if call_id not in self._arguments:
            return None
        arguments = self._arguments.pop(call_id)
        args = arguments if isinstance(arguments, dict) else {"raw": arguments}
        return ToolCall(tool, args, ok, result)


class _SyncRuntime(Protocol):
    def send_sync(self, thread_id: str, text: str) -> Any: ...

    def close(self) -> None: ...


def run_agent_cell(
    open_runtime: Callable[[], _SyncRuntime], prompt: str, unavailable: type[Exception]
) -> Any:
    """The agent's run of one cell on a fresh thread (its RunResult). A runtime that cannot
    start (`unavailable`: no such backend or model) is a harness failure, not a low score."""
    try:
        runtime = open_runtime()
    except unavailable as error:
        raise HarnessFailure(str(error)) from error
    try:
        return runtime.send_sync(bench_thread_id(), prompt)
    finally:
        runtime.close()


def agent_policy_run(result: Any) -> PolicyRun:
    """An agent cell's RunResult read as a PolicyRun. A model that could not be reached is a
    harness failure (the cell is retried on resume), not a low score."""
    from workbench.agents.events import (
        AgentError,
        FinalAnswer,
        ModelCalled,
        Token,
        ToolFinished,
        ToolStarted,
    )

    run = PolicyRun(status=result.status, error=result.error, answer=result.answer)
    pairing = ToolCallPairing()
    streamed: list[str] = []
    for event in result.events:
        if isinstance(event, AgentError) and event.kind == "model_unreachable":
            raise HarnessFailure(event.message)
        if isinstance(event, ToolStarted):
            pairing.started(event.tool_call_id, event.tool, event.arguments)
        elif isinstance(event, ToolFinished):
            call = pairing.finished(event.tool_call_id, event.tool, event.ok, event.result)
            if call is not None:
                run.calls.append(call)
                run.texts.append(json.dumps(event.result, default=str) if event.ok else event.error)
        elif isinstance(event, Token):
            streamed.append(event.text)
        elif isinstance(event, FinalAnswer):
            run.texts.append(event.text)
        elif isinstance(event, ModelCalled):
            run.tokens_in += event.input_tokens
            run.tokens_out += event.output_tokens
            run.model_latency_s += event.latency_s
            run.model_calls += 1
    run.texts.append("".join(streamed))
    return run
