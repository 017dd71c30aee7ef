"""Chat messages made fit for the next model call: plain text out of content blocks, dangling
tool calls answered, unparseable tool calls turned into ordinary (refused) calls."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage


def text_of(content: Any) -> str:
    """The text of a message's content, whether a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        return "".join(
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str) or block.get("type") == "text"
        )
    return str(content or "")


def closed(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
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
            pending = {id_of(call): call["name"] for call in message.tool_calls}
    flush()
    return out


def id_of(call: ToolCall) -> str:
    """A tool call's id; `sanitized` gives every call one."""
    return call["id"] or ""


@dataclass(frozen=True)
class BadCall:
    """A tool call whose arguments could not be parsed."""

    id: str
    name: str
    raw: Any
    problem: str

    @property
    def problem_text(self) -> str:
        """The parser's complaint, short enough to show the model."""
        return (self.problem or "not valid JSON").splitlines()[0][:200]


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
