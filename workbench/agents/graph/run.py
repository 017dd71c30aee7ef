"""What a run sends out and how its stretches of work end.

A node sends events on the run's custom stream (`emit`) and knows its run by the ids in the run's
config. The supervisor's final answer ends the engineer's turn, a specialist's report ends its
hand-off and goes back to the supervisor, and a person's Cancel of a tool call's job ends the
hand-off and the whole run at once (outcome `USER_CANCELLED`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END
from langgraph.types import Command

from workbench.agents.events import AgentEvent, FinalAnswer
from workbench.agents.graph.state import SUPERVISOR, AgentState, entry
from workbench.agents.toolbridge import handoff_name

USER_CANCELLED = "cancelled_by_user"  # ToolFinished.error_kind, transcript entries, run outcome


def emit(event: AgentEvent) -> None:
    """Send an event to whoever streams the run (the runtime, in "custom" stream mode)."""
    get_stream_writer()(event)


def run_ids(config: RunnableConfig) -> tuple[str, Any]:
    """The conversation's thread id and the store's run id (None outside a recorded run)."""
    configurable = config.get("configurable", {})
    return str(configurable.get("thread_id", "")), configurable.get("run_id")


def thread_of(config: RunnableConfig) -> str:
    return run_ids(config)[0]


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


def stopped_by_user(
    state: AgentState,
    tool: str,
    work: Sequence[BaseMessage],
    transcript_before: list[dict[str, Any]],
) -> Command:
    """A person cancelled `tool`'s job: the hand-off is answered with a report saying so (the
    supervisor reads it next turn) and the run ends here, with no further model or tool call."""
    name = state["active"]
    text = (
        f"The user cancelled {tool} while {name} was working on this task, and that stopped "
        "the run. Nothing after it was done; do not redo it unless the user asks."
    )
    answer = ToolMessage(
        text, tool_call_id=state["handoff_id"], name=handoff_name(name), status="error"
    )
    return Command(
        update={
            "messages": [answer],
            "work": work,
            "active": "",
            "nudge": "",
            "outcome": USER_CANCELLED,
            "transcript": [*transcript_before, entry("report", name, text, cancelled=True)],
        },
        goto=END,
    )
