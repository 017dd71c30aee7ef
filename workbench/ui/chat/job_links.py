"""Qt-free link from a chat tool card to the jobs its call starts (see `card_progress`).

A job's `JobStarted` names the tool call that started it (`tool_call_id`); a card that knows its
call's id follows those jobs on the bus and shows their progress while the call runs.

An agent's card is made when the run's ToolStarted reaches the GUI thread, which on a busy machine
is after the tool's thread has already published its jobs' JobStarted. `StartedJobs` listens from
the chat's start, so a card that follows late still finds the jobs its call started.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from workbench.core.events import EventBus, JobFinished, JobStarted


class StartedJobs:
    """The running jobs that tool calls started, by call id (from JobStarted to JobFinished)."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self._lock = threading.Lock()
        self._running: dict[str, JobStarted] = {}  # by job id
        self._unsubscribe: list[Callable[[], None]] = [
            bus.subscribe(JobStarted, self._on_started),
            bus.subscribe(JobFinished, self._on_finished),
        ]

    def of_call(self, tool_call_id: str) -> list[JobStarted]:
        with self._lock:
            return [e for e in self._running.values() if e.tool_call_id == tool_call_id]

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []

    # in the publisher's thread
    def _on_started(self, event: JobStarted) -> None:
        if event.tool_call_id:
            with self._lock:
                self._running[event.job_id] = event

    def _on_finished(self, event: JobFinished) -> None:
        with self._lock:
            self._running.pop(event.job_id, None)


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
