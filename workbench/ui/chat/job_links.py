"""Qt-free link from a chat tool card to the jobs its call starts (see `card_progress`).

A job's `JobStarted` names the tool call that started it (`tool_call_id`); a card that knows its
call's id follows those jobs on the bus and shows their progress while the call runs.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from workbench.core.events import EventBus


@runtime_checkable
class JobFollowingCard(Protocol):
    """A card that can show the progress of the jobs its call starts (the chat's ToolCard)."""

    def follow_jobs(self, tool_call_id: str, bus: EventBus | None = None) -> None:
        """Show the progress of the jobs whose JobStarted names `tool_call_id`, until finished
        (on `bus`, else the bus the card was made with)."""


def follow_jobs(card: object, tool_call_id: str, bus: EventBus | None = None) -> None:
    """Let `card` show its call's jobs, when it can (a test's recorded card cannot)."""
    if tool_call_id and isinstance(card, JobFollowingCard):
        card.follow_jobs(tool_call_id, bus)
