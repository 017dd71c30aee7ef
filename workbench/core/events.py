"""Typed events and the bus that carries them.

Publishers may be any thread (or a worker process, through `workbench.core.jobs`). Each publisher
delivers in its own thread, outside the bus's lock, so every subscriber sees one publisher's events
in the order they were published, and a slow subscriber delays only the thread that publishes to
it, never another thread's publish. A subscriber may
give a `deliver` function: the GUI passes one that posts to the Qt thread (its queue keeps the
order); the default calls the handler at once, which is what headless progress output wants.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger(__name__)
E = TypeVar("E", bound="Event")


class Event(BaseModel):
    """Base of every event. Subclasses add typed fields; they must stay picklable."""

    model_config = ConfigDict(frozen=True)

    source: str = "workbench"
    time: float = Field(default_factory=time.time)


# The tool call whose work runs in this context ("" outside one): the agent's tool node and the
# chat's /tool set it around a call. A job publishes JobStarted from the thread that starts it, and
# the registry runs a synchronous tool in a thread that copies the context, so every publisher
# (the job runner, a plugin's own monitor) tags its jobs without knowing about tool calls.
CURRENT_TOOL_CALL: ContextVar[str] = ContextVar("workbench_current_tool_call", default="")


class JobStarted(Event):
    job_id: str
    title: str
    # the tool call that started the job: the chat's card of that call shows its progress
    tool_call_id: str = Field(default_factory=lambda: CURRENT_TOOL_CALL.get())


class JobProgress(Event):
    job_id: str
    fraction: float | None = None
    message: str = ""
    data: dict[str, Any] = Field(default_factory=dict)


class JobFinished(Event):
    job_id: str
    status: str  # "done" | "failed" | "cancelled"
    error: str = ""


class JobCancelRequested(Event):
    """A person asked to cancel job `job_id` (the jobs bar's or a view's Cancel button); an
    agent whose tool call started that job stops its run instead of going on."""

    source: str = "person"
    job_id: str


class ToolCalled(Event):
    tool: str
    caller: str
    ok: bool
    duration_s: float
    call_id: int


class LedgerChanged(Event):
    change: str
    payload: dict[str, Any] = Field(default_factory=dict)


class Notice(Event):
    """Something a person should see (a plugin that failed to load, a lost connection...)."""

    level: str = "warning"  # "info" | "warning" | "error"
    text: str


# A subscription keeps its handler whatever event type it takes (Any: `subscribe` pairs each
# handler with its event type, and `publish` hands it only events of that type).
Handler = Callable[[Any], None]
Deliver = Callable[[Handler, Event], None]


def call_now(handler: Handler, event: Event) -> None:
    handler(event)


@dataclass(eq=False)  # compared by identity: the same handler may subscribe twice
class Subscription:
    event_type: type[Event]
    handler: Handler
    deliver: Deliver


class EventBus:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # replaced, never mutated: a publisher iterates a snapshot without holding the lock
        self._subscriptions: tuple[Subscription, ...] = ()

    def subscribe(
        self,
        event_type: type[E],
        handler: Callable[[E], None],
        deliver: Deliver = call_now,
    ) -> Callable[[], None]:
        """Receive every event of `event_type` (and subclasses); returns an unsubscribe function."""
        subscription = Subscription(event_type, handler, deliver)
        with self._lock:
            self._subscriptions = (*self._subscriptions, subscription)

        def unsubscribe() -> None:
            with self._lock:
                self._subscriptions = tuple(s for s in self._subscriptions if s is not subscription)

        return unsubscribe

    def publish(self, event: Event) -> None:
        for subscription in self._subscriptions:  # a snapshot: no lock held while delivering
            if not isinstance(event, subscription.event_type):
                continue
            try:
                subscription.deliver(subscription.handler, event)
            except Exception:  # one broken subscriber must not starve the others
                log.exception("subscriber %r failed on %s", subscription.handler, event)
