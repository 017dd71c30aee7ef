"""Per model call: logical tokens and latency, kept in `agents.sqlite` in the workspace folder.

The agent keeps its own file (the core store's schema is not ours to change): one row per model
call, and the conversation list (id, title, model, created, updated) for the chat panel. Totals per
run also go into the core store's `runs` table (kind "agent"), through its public API.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE_NAME = "agents.sqlite"
TOKEN_FIELDS = ("input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens")

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS model_calls (
        id INTEGER PRIMARY KEY,
        run_id INTEGER,
        thread_id TEXT NOT NULL,
        agent TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        latency_s REAL NOT NULL,
        problem TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS conversations (
        thread_id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        model TEXT NOT NULL,
        created REAL NOT NULL,
        updated REAL NOT NULL
    )""",
)


@dataclass(frozen=True)
class Conversation:
    thread_id: str
    title: str
    model: str
    created: float
    updated: float


def usage_of(message: Any) -> dict[str, int]:
    """Logical tokens as the backend reported them (LangChain's usage_metadata); zeros if absent."""
    usage = getattr(message, "usage_metadata", None) or {}
    details = usage.get("input_token_details") or {}
    return {
        "input_tokens": int(usage.get("input_tokens") or 0),
        "output_tokens": int(usage.get("output_tokens") or 0),
        "cache_creation_tokens": int(details.get("cache_creation") or 0),
        "cache_read_tokens": int(details.get("cache_read") or 0),
    }


class AgentLog:
    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / FILE_NAME
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        with self._db:
            for statement in SCHEMA:
                self._db.execute(statement)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- model calls ----------------------------------------------------------------------------
    def record_call(
        self,
        *,
        run_id: int | None,
        thread_id: str,
        agent: str,
        model: str,
        tokens: dict[str, int],
        latency_s: float,
        problem: str = "",
    ) -> None:
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO model_calls (run_id, thread_id, agent, model, input_tokens,"
                " output_tokens, cache_creation_tokens, cache_read_tokens, latency_s, problem,"
                " created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    thread_id,
                    agent,
                    model,
                    *(tokens.get(name, 0) for name in TOKEN_FIELDS),
                    latency_s,
                    problem,
                    time.time(),
                ),
            )

    def calls(self, *, run_id: int | None = None, thread_id: str | None = None) -> list[dict]:
        sql = "SELECT * FROM model_calls WHERE 1=1"
        parameters: list[int | str] = []
        if run_id is not None:
            sql, parameters = sql + " AND run_id = ?", [*parameters, run_id]
        if thread_id is not None:
            sql, parameters = sql + " AND thread_id = ?", [*parameters, thread_id]
        with self._lock:
            return [dict(row) for row in self._db.execute(sql + " ORDER BY id", parameters)]

    def totals(self, run_id: int) -> dict[str, Any]:
        calls = self.calls(run_id=run_id)
        totals: dict[str, Any] = {name: sum(c[name] for c in calls) for name in TOKEN_FIELDS}
        totals["model_calls"] = len(calls)
        totals["latency_s"] = round(sum(c["latency_s"] for c in calls), 6)
        totals["malformed_replies"] = sum(1 for c in calls if c["problem"])
        return totals

    # -- conversations --------------------------------------------------------------------------
    def touch(self, thread_id: str, *, title: str, model: str) -> None:
        now = time.time()
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO conversations (thread_id, title, model, created, updated)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(thread_id) DO UPDATE SET"
                " updated = excluded.updated, model = excluded.model,"
                " title = CASE WHEN conversations.title = '' THEN excluded.title"
                " ELSE conversations.title END",
                (thread_id, title, model, now, now),
            )

    def conversations(self) -> list[Conversation]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM conversations ORDER BY updated DESC, rowid DESC"
            ).fetchall()
        return [Conversation(**dict(row)) for row in rows]

    def forget(self, thread_id: str) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM conversations WHERE thread_id = ?", (thread_id,))
