"""Guards that end a hand-off early, read from the specialist's own messages: the same call made
again and again, and one tool failing several times running."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage

from workbench.agents.graph.messages import text_of
from workbench.agents.graph.state import MAX_IDENTICAL_CALLS


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
