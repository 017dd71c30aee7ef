"""The graph's wiring (three nodes over one `GraphDeps`, entered at the supervisor) and the
conversations' checkpoint file (LangGraph's SQLite saver), opened once per run.

A run that is stopped (the chat's Stop) must not leave the file locked for the next one. It did,
rarely: the stopped run's last checkpoint write had executed its INSERT but not its COMMIT, and
an aiosqlite cursor of that run was still alive in a reference cycle. Python's `close()` then
leaves SQLite with a "zombie" connection (sqlite3_close_v2 waits for the cursor's statement),
which keeps the open write transaction, so the next run's first write waited on the lock (busy
timeout) while LangGraph's other writes queued on the saver's lock. A garbage collection freed
the cursor and the run went on. So here:

- the connection is in autocommit mode: each write commits by itself, so a cancelled commit
  leaves no transaction (and no lock) behind, whatever cursor outlives the run;
- closing is shielded from a second cancellation, and the next run waits (bounded) for the
  previous run's close before it opens the file, with a clear error instead of a hang;
- LangGraph hands a cancelled run's unfinished exit (its last checkpoint writes) to the caller
  in the CancelledError (`settle_stopped_run`), to finish before the connection closes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph

from workbench.agents.graph.specialist import SpecialistNode
from workbench.agents.graph.state import SPECIALIST, SUPERVISOR, TOOLS, AgentState, GraphDeps
from workbench.agents.graph.supervisor import SupervisorNode
from workbench.agents.graph.tools import ToolNode

BUSY_TIMEOUT_S = 30.0  # a write waits this long for another connection's lock
CLOSE_WAIT_S = 30.0  # the next run waits this long for the previous run's close
EXIT_WAIT_S = 10.0  # a stopped run's last checkpoint writes get this long to finish


def build_graph(deps: GraphDeps) -> StateGraph:
    """The uncompiled graph; the runtime compiles it with a checkpointer per run."""
    builder = StateGraph(AgentState)
    builder.add_node(SUPERVISOR, SupervisorNode(deps), destinations=(SUPERVISOR, SPECIALIST, END))
    builder.add_node(SPECIALIST, SpecialistNode(deps), destinations=(SPECIALIST, TOOLS, SUPERVISOR))
    builder.add_node(TOOLS, ToolNode(deps), destinations=(SPECIALIST, SUPERVISOR, END))
    builder.add_edge(START, SUPERVISOR)
    return builder


class CheckpointFileBusy(RuntimeError):
    """The previous run has not finished closing the checkpoint file."""


class CheckpointFile:
    """One per runtime: opens the file per run and knows whether the last close has finished."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._closing: asyncio.Future[None] | None = None

    @asynccontextmanager
    async def saver(self) -> AsyncIterator[AsyncSqliteSaver]:
        await self._previous_run_closed()
        connection = await aiosqlite.connect(
            self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None
        )
        try:
            async with connection.execute("PRAGMA journal_mode=WAL"):
                pass
            yield AsyncSqliteSaver(connection)
        finally:
            closing = asyncio.ensure_future(connection.close())
            self._closing = closing
            await asyncio.shield(closing)  # a second cancel must not leave it half closed

    async def _previous_run_closed(self) -> None:
        closing = self._closing
        if closing is None or closing.done():
            return
        if closing.get_loop() is not asyncio.get_running_loop():
            return  # closed on another loop (a sync call): not awaitable from here
        try:
            await asyncio.wait_for(asyncio.shield(closing), CLOSE_WAIT_S)
        except TimeoutError:
            raise CheckpointFileBusy(
                f"The previous run is still closing {self.path.name} after {CLOSE_WAIT_S:g} s. "
                "Send the message again in a moment; the conversation is kept."
            ) from None


async def settle_stopped_run(stop: asyncio.CancelledError) -> None:
    """LangGraph puts a cancelled run's exit task (its last checkpoint writes) into the
    CancelledError's args, for the caller to await before the connection goes away."""
    unfinished = [arg for arg in stop.args if isinstance(arg, asyncio.Task) and not arg.done()]
    if unfinished:
        await asyncio.wait(unfinished, timeout=EXIT_WAIT_S)
