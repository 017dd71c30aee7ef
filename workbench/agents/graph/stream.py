"""What a node sends out while it runs (events on the run's custom stream) and which run it is
in (ids from the run's config)."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer

from workbench.agents.events import AgentEvent


def emit(event: AgentEvent) -> None:
    """Send an event to whoever streams the run (the runtime, in "custom" stream mode)."""
    get_stream_writer()(event)


def run_ids(config: RunnableConfig) -> tuple[str, Any]:
    """The conversation's thread id and the store's run id (None outside a recorded run)."""
    configurable = config.get("configurable", {})
    return str(configurable.get("thread_id", "")), configurable.get("run_id")


def thread_of(config: RunnableConfig) -> str:
    return run_ids(config)[0]
