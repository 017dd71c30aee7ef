"""The two ways a stretch of work ends: the supervisor's final answer ends the engineer's turn,
a specialist's report ends its hand-off and goes back to the supervisor."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END
from langgraph.types import Command

from workbench.agents.events import FinalAnswer
from workbench.agents.graph.state import SUPERVISOR, AgentState, entry
from workbench.agents.graph.stream import emit, thread_of
from workbench.agents.toolbridge import handoff_name


def final(
    text: str, outcome: str, config: RunnableConfig, extra: dict[str, Any] | None = None
) -> Command:
    """The supervisor answers the engineer with `text`; `extra` is merged into the update."""
    emit(FinalAnswer(thread_id=thread_of(config), agent=SUPERVISOR, text=text))
    update = dict(extra or {})
    update["messages"] = [*update.get("messages", []), AIMessage(text, name=SUPERVISOR)]
    update["transcript"] = [
        *update.get("transcript", []),
        entry("assistant", SUPERVISOR, text, final=True),
    ]
    return Command(update={**update, "outcome": outcome, "nudge": ""}, goto=END)


def report(
    state: AgentState,
    text: str,
    work: Sequence[BaseMessage],
    transcript_before: list[dict[str, Any]] | None = None,
) -> Command:
    """The active specialist's result goes back to the supervisor as the hand-off's answer;
    `transcript_before` are entries of the same step that come before the report."""
    name = state["active"]
    text = text.strip() or f"({name} finished without a report.)"
    answer = ToolMessage(text, tool_call_id=state["handoff_id"], name=handoff_name(name))
    return Command(
        update={
            "messages": [answer],
            "work": work,
            "active": "",
            "nudge": "",
            "transcript": [*(transcript_before or []), entry("report", name, text)],
        },
        goto=SUPERVISOR,
    )
