"""The agent's sessions with external MCP servers, kept open between calls.

A stdio server is one process for as long as the app runs (a server that holds a connection, or
takes seconds to start, is started once), an HTTP server one session. The sessions live on an
event loop of their own, in a daemon thread: the registry runs tools on whichever loop calls it
(the GUI's, a bench cell's, `asyncio.run` for a headless call), and an SDK session belongs to the
loop that opened it. Callers await `list_tools` and `call_tool` from any loop.

A session that fails (the server exited, the connection dropped) is closed, and the next use
opens a new one; a call is never repeated on its own, since it may have acted. Sessions of
servers no longer configured are closed (`keep_only`); all of them when the process ends.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import tempfile
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import Client
from mcp_types import CallToolResult

from workbench_plugins.mcp_servers.client import (
    Listing,
    McpServerError,
    explained,
    listing_of,
    open_client,
    tail,
    working_folder,
)
from workbench_plugins.mcp_servers.config import McpServer

T = TypeVar("T")
CLOSE_TIMEOUT_S = 10.0  # a stdio server gets its stdin closed, then a grace time, then a kill


Key = tuple[str, str]  # (how it is reached, where a stdio server starts)


def session_key(server: McpServer, workspace: Path) -> Key:
    """What decides which session serves a server: how it is reached, and where it starts."""
    where = working_folder(server, workspace) if server.transport == "stdio" else ""
    return server.connection(), str(where)


class _Session:
    """One open session, held by a task that enters the SDK client and waits to be told to
    leave (entering and leaving in one task, as anyio's scopes need)."""

    def __init__(self, server: McpServer, workspace: Path) -> None:
        self.server = server
        # open as long as the session: closed by `close`
        self.errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self.statuses: list[int] = []
        self.ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
        self.leave = asyncio.Event()
        self.task = asyncio.create_task(self._hold(workspace), name=f"mcp:{server.name}")

    async def _hold(self, workspace: Path) -> None:
        try:
            client = open_client(self.server, workspace, self.errlog, self.statuses)
            async with client:
                self.ready.set_result(client)
                await self.leave.wait()
        except asyncio.CancelledError:
            self.ready.cancel()  # a no-op once it is done
            raise
        except Exception as error:
            if not self.ready.done():
                self.ready.set_exception(error)

    @property
    def open(self) -> bool:
        return self.ready.done() and not self.task.done() and not self.leave.is_set()

    async def close(self) -> None:
        self.leave.set()
        if not self.ready.done():  # still starting (a timeout): there is nothing to wind down
            self.task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), CLOSE_TIMEOUT_S)
        except (TimeoutError, asyncio.CancelledError):
            self.task.cancel()
        except Exception:  # it failed: said when it was used
            pass
        finally:
            self.errlog.close()


class SessionPool:
    """Open sessions by `session_key`, on the pool's own loop."""

    def __init__(self) -> None:
        self._sessions: dict[Key, _Session] = {}
        self._locks: dict[Key, asyncio.Lock] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread_lock = threading.Lock()

    def _pool_loop(self) -> asyncio.AbstractEventLoop:
        with self._thread_lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="mcp-sessions", daemon=True).start()
                self._loop = loop
            return self._loop

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Await `coroutine` on the pool's loop, from any loop (a cancelled caller cancels it)."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self._pool_loop())
        return await asyncio.wrap_future(future)

    async def use(
        self,
        server: McpServer,
        workspace: Path,
        limit_s: float,
        doing: str,
        work: Callable[[Client], Awaitable[T]],
    ) -> T:
        """`work` on the server's open session (opened first if needed), within `limit_s`.
        Runs on the pool's loop (call it through `run`)."""
        key = session_key(server, workspace)
        session = await self._session(key, server, workspace)
        try:
            with anyio.fail_after(limit_s):
                ready = session.ready.result()
                return await work(ready)
        except Exception as error:
            if not isinstance(error, TimeoutError):  # the session may be broken: start afresh
                await self._drop(key, session)
            raise explained(
                server, doing, error, tail(session.errlog), limit_s, session.statuses
            ) from error

    async def _session(self, key: Key, server: McpServer, workspace: Path) -> _Session:
        async with self._locks.setdefault(key, asyncio.Lock()):
            found = self._sessions.get(key)
            if found is not None and found.open:
                return found
            if found is not None:
                await self._drop(key, found)
            session = _Session(server, workspace)
            try:
                await asyncio.wait_for(asyncio.shield(session.ready), server.timeout_s)
            except Exception as error:
                stderr = tail(session.errlog)
                await session.close()
                if isinstance(error, McpServerError):
                    raise
                raise explained(
                    server, "connecting", error, stderr, server.timeout_s, session.statuses
                ) from error
            self._sessions[key] = session
            return session

    async def _drop(self, key: Key, session: _Session) -> None:
        if self._sessions.get(key) is session:
            del self._sessions[key]
        await session.close()

    async def keep_only(self, connections: set[str]) -> None:
        """Close every session of a server reached in none of these ways (whatever its
        workspace: each context's runs refresh with the same settings). On the pool's loop."""
        for key, session in list(self._sessions.items()):
            if key[0] not in connections:
                await self._drop(key, session)

    def close_all(self) -> None:
        """Close every session (from any thread but the pool's): at exit, between tests."""
        with self._thread_lock:
            loop = self._loop
        if loop is None or not self._sessions:
            return
        done = asyncio.run_coroutine_threadsafe(self.keep_only(set()), loop)
        # at exit, what could not close is killed with the process
        with contextlib.suppress(Exception):
            done.result(timeout=CLOSE_TIMEOUT_S + 5)

    def open_sessions(self) -> list[str]:
        """The names of the servers with an open session (a server twice: two workspaces)."""
        return sorted(session.server.name for session in self._sessions.values() if session.open)


pool = SessionPool()
atexit.register(pool.close_all)


async def list_tools(server: McpServer, workspace: Path) -> Listing:
    """The server's tools, on its kept session (started or reached first if needed)."""
    return await pool.run(
        pool.use(server, workspace, server.timeout_s, "listing its tools", listing_of)
    )


async def call_tool(
    server: McpServer, workspace: Path, tool: str, arguments: dict[str, Any]
) -> CallToolResult:
    """Call `tool` on the server's kept session; its error results come back as results."""

    async def calling(client: Client) -> CallToolResult:
        return await client.call_tool(tool, arguments)

    doing = f"calling {tool}"
    return await pool.run(pool.use(server, workspace, server.call_timeout_s, doing, calling))


async def keep_only(servers: list[McpServer]) -> None:
    """Close the sessions of servers not among `servers` (removed, disabled, changed)."""
    if pool.open_sessions():  # nothing to close: no need to start the pool's thread
        await pool.run(pool.keep_only({server.connection() for server in servers}))
