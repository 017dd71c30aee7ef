"""The session behind `workbench --headless chat` (cli_chat.py has its arguments and exit codes):
the desk's agent runtime on one request, each event printed as a JSON line as it happens, and
its questions and confirmations answered from the command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass, field
from typing import Any

from workbench.agents import AgentRuntime, BackendError
from workbench.agents.defaults import default_model
from workbench.agents.events import AgentEvent, InterruptRequested, Routed, Token
from workbench.agents.hitl import NO_HUMAN_ANSWER, HeadlessPolicy
from workbench.agents.routing import default_prior
from workbench.agents.runtime import RunResult
from workbench.core.context import AppContext

DONE, FAILED, UNUSABLE, REFUSED, INTERRUPTED = 0, 1, 2, 3, 130  # exit codes: cli_chat.py says
NEITHER = "refused: no --yes or --no was given, and no person is here to confirm"


def event_line(event: AgentEvent) -> dict[str, Any]:
    """An event as its JSON line: {"event": "tool_finished", ...its fields}."""
    name = "".join(f"_{c.lower()}" if c.isupper() else c for c in type(event).__name__)
    return {"event": name.lstrip("_"), **event.model_dump(mode="json", exclude={"source"})}


def emit_line(line: dict[str, Any]) -> None:
    print(json.dumps(line, ensure_ascii=False), flush=True)


@dataclass
class ChatPolicy(HeadlessPolicy):
    """The command line's answers: `approving` True for --yes, False for --no, None when neither
    (refused); `reply` answers questions. Each answer is printed as an "answered" line."""

    approving: bool | None = None
    reply: str = ""
    refused: list[str] = field(default_factory=list)  # tools refused for want of --yes/--no

    def answer(self, request: InterruptRequested) -> Any:
        line: dict[str, Any] = {"event": "answered", "kind": request.kind, "tool": request.tool}
        if request.kind == "clarification":
            text = self.reply or NO_HUMAN_ANSWER
            emit_line({**line, "by": "--answer" if self.reply else "refused", "answer": text})
            return text
        if self.approving is None:
            self.refused.append(request.tool)
            by, reason = "refused", NEITHER
        else:
            by = "--yes" if self.approving else "--no"
            reason = f"{'approved' if self.approving else 'declined'} by the person ({by})"
        approved = bool(self.approving)
        emit_line({**line, "by": by, "approved": approved, "reason": reason})
        return {"approved": approved, "reason": reason}


def chat(context: AppContext, args: argparse.Namespace) -> int:
    spec = args.model or default_model(context.settings).spec
    policy = ChatPolicy(approving=True if args.yes else False if args.no else None)
    policy.reply = args.answer
    prior = default_prior() if args.routing == "prior" else None
    try:
        runtime = AgentRuntime(
            context,
            spec,
            policy=policy,
            prior="auto" if args.routing == "auto" else prior,
            max_model_calls=args.max_calls,
        )
    except (BackendError, ValueError, OSError) as error:  # bad spec, missing key or file
        print(f"The model {spec!r} cannot be used: {error}", file=sys.stderr)
        return UNUSABLE
    try:
        return asyncio.run(_converse(runtime, policy, args))
    except KeyboardInterrupt:  # the runtime recorded the run as cancelled
        return INTERRUPTED
    finally:
        runtime.close()


async def _converse(runtime: AgentRuntime, policy: ChatPolicy, args: argparse.Namespace) -> int:
    def on_event(event: AgentEvent) -> None:
        if args.stream or not isinstance(event, Token):
            emit_line(event_line(event))

    results: list[RunResult] = []
    message = args.message.strip()
    if args.resume:
        known = runtime.conversations()  # newest first
        if not known:
            print("There is no conversation to continue in this workspace.", file=sys.stderr)
            return UNUSABLE
        thread_id = known[0].thread_id
        pending = await runtime.pending(thread_id)
        if pending:  # what it waits for comes first, as the desk would ask it first
            emit_line(event_line(pending[0]))
            results.append(await runtime.resume(thread_id, policy.answer(pending[0]), on_event))
        elif not message:
            print("The newest conversation waits for nothing; say what to do.", file=sys.stderr)
            return UNUSABLE
    else:
        thread_id = runtime.new_thread()
    if message and args.route_only:
        return await _route_only(runtime, thread_id, message)
    if message:
        results.append(await runtime.send(thread_id, message, on_event))
    return _exit_code(results, policy)


async def _route_only(runtime: AgentRuntime, thread_id: str, message: str) -> int:
    """Send `message` and stop the run once it is handed over: the routing decision alone."""
    routed: list[Routed] = []
    run: asyncio.Task[RunResult] | None = None

    def on_event(event: AgentEvent) -> None:
        if not isinstance(event, Token):
            emit_line(event_line(event))
        if isinstance(event, Routed) and not routed and run is not None:
            routed.append(event)
            run.cancel()  # at once, before the specialist's first model call

    run = asyncio.create_task(runtime.send(thread_id, message, on_event))
    try:
        await run
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if not routed or (current is not None and current.cancelling()):
            raise  # Ctrl+C, not our stop
    return DONE if routed else FAILED


def _exit_code(results: list[RunResult], policy: ChatPolicy) -> int:
    if any(r.status == "cancelled" for r in results):
        return INTERRUPTED
    if any(r.status != "done" for r in results):
        return FAILED
    return REFUSED if policy.refused else DONE
