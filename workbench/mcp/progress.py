"""The jobs one MCP tool call starts: their progress sent to the client, cancelled with the call.

A context variable marks the call (core's `CURRENT_TOOL_CALL`, as the agent's tool node does): the
registry runs a synchronous tool in a thread that copies the context, so every `JobStarted` the
call causes names it. Bus events arrive in publishing threads and are handed to the loop.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable

from workbench.core.call_jobs import ToolCallJobs
from workbench.core.events import EventBus, JobProgress, JobStarted

# progress, total, message: what `ServerSession.report_progress` takes
ReportProgress = Callable[[float, float | None, str | None], Awaitable[None]]
log = logging.getLogger(__name__)
_markers = itertools.count(1)
FULL = 100.0  # progress is sent in percent


def new_marker() -> str:
    """A tool-call id for the jobs of one MCP call (the store's call id is not known yet)."""
    return f"mcp-call-{next(_markers)}"


class CallJobs(ToolCallJobs):
    """Within the block: the jobs started under `marker`, and their progress events in order."""

    def __init__(self, bus: EventBus, marker: str) -> None:
        super().__init__(bus)
        self.marker = marker
        self._loop = asyncio.get_running_loop()
        self._events: asyncio.Queue[JobProgress] = asyncio.Queue()
        self._last = 0.0

    def _is_ours(self, event: JobStarted) -> bool:
        return event.tool_call_id == self.marker

    def _listen(self) -> list[Callable[[], None]]:
        return [self._bus.subscribe(JobProgress, self._on_progress)]

    def _on_progress(self, event: JobProgress) -> None:
        with self._lock:
            ours = event.job_id in self._started
        if ours:
            self._loop.call_soon_threadsafe(self._events.put_nowait, event)

    async def forward(self, report: ReportProgress) -> None:
        """Send each progress event (until cancelled); the value only ever grows, as MCP wants."""
        while True:
            event = await self._events.get()
            value = self._last + 0.01 if event.fraction is None else event.fraction * 100.0
            value = max(value, self._last + 0.01)
            if value > FULL:  # a note after the end: nothing left to advance
                continue
            self._last = value
            try:
                await report(round(value, 2), FULL, event.message or None)
            except Exception:  # the client went away: the call itself goes on
                log.debug("progress for %s could not be sent", self.marker, exc_info=True)
                return
