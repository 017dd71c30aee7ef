"""The last answer in the chat: the newest final assistant message of the newest conversation.

The chat keeps its conversation list in `<workspace>/agents.sqlite` (workbench.agents.accounting)
and each conversation's state in `<workspace>/conversations.sqlite` (LangGraph's SQLite saver,
workbench.agents.runtime). This reads both read-only, so taking an answer never writes to the chat's
files nor waits for a model. Blocking (SQLite): call it off the GUI thread. Qt-free.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage

from workbench.agents.accounting import FILE_NAME as CONVERSATION_LIST
from workbench.agents.accounting import AgentLog
from workbench.agents.graph.model import text_of
from workbench.agents.runtime import CHECKPOINT_FILE

NO_CHAT = (
    "The chat has no conversation in this workspace yet. Ask the agent to solve the problem "
    "(in the 8 tagged stages), or paste a solution."
)


class NoChatAnswer(LookupError):
    """Nothing to take from the chat; the message says why and what to do."""


@dataclass(frozen=True)
class ChatAnswer:
    thread_id: str
    title: str  # the conversation's title in the chat's list
    text: str


def last_chat_answer(workspace: Path) -> ChatAnswer:
    """The newest conversation's last final answer; NoChatAnswer when there is none."""
    if not (workspace / CONVERSATION_LIST).exists():
        raise NoChatAnswer(NO_CHAT)
    log = AgentLog(workspace)
    try:
        conversations = log.conversations()
    finally:
        log.close()
    if not conversations or not (workspace / CHECKPOINT_FILE).exists():
        raise NoChatAnswer(NO_CHAT)
    newest = conversations[0]
    values = _conversation_state(workspace / CHECKPOINT_FILE, newest.thread_id)
    text = _final_answer(values)
    if not text.strip():
        raise NoChatAnswer(
            f"The newest conversation ({newest.title or newest.thread_id!r}) has no answer from "
            "the agent yet. Wait for its answer, or paste a solution."
        )
    return ChatAnswer(newest.thread_id, newest.title, text)


def _conversation_state(path: Path, thread_id: str) -> dict[str, Any]:
    from langgraph.checkpoint.sqlite import SqliteSaver  # the chat's own checkpoint format

    uri = f"file:{path}?mode=ro"
    try:
        with closing(sqlite3.connect(uri, uri=True, check_same_thread=False)) as connection:
            found = SqliteSaver(connection).get_tuple({"configurable": {"thread_id": thread_id}})
    except sqlite3.Error as error:
        raise NoChatAnswer(
            f"The chat's conversations could not be read ({error}). Paste the solution instead."
        ) from error
    return dict(found.checkpoint.get("channel_values", {})) if found else {}


def _final_answer(values: dict[str, Any]) -> str:
    """The transcript's newest final answer (what the chat shows), else the newest plain
    AIMessage of the supervisor's conversation."""
    for item in reversed(values.get("transcript", [])):
        if item.get("role") == "assistant" and item.get("final"):
            return str(item.get("content", ""))
    for message in reversed(values.get("messages", [])):
        if isinstance(message, AIMessage) and not message.tool_calls:
            return text_of(message.content)
    return ""
