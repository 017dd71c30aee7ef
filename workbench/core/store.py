"""The workspace store: one SQLite file in WAL mode, versioned migrations, content-addressed files.

Every tool call, artifact, run and benchmark cell lands here, so a crash loses at most the call in
flight. Several processes (bench workers, the GUI) may open the same file; WAL plus a busy timeout
lets them write in turn.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from workbench.core.migrations import MIGRATIONS

DATABASE_NAME = "workspace.sqlite"


class StoreError(RuntimeError):
    """The workspace cannot be opened or written; the message says which file and what to do."""


@dataclass(frozen=True)
class Artifact:
    id: int
    sha256: str
    name: str
    kind: str
    path: Path
    size: int
    meta: dict[str, Any]
    tool_call_id: int | None


class ToolCallRecord(TypedDict):
    """A row of `tool_calls`, its JSON columns decoded; `ok` is None while the call runs."""

    id: int
    tool: str
    caller: str
    arguments: Any  # as the caller gave them: a JSON object, or whatever a model wrote
    ok: bool | None
    result: dict[str, Any] | None
    error: dict[str, Any] | None  # a ToolError, dumped
    started: float
    duration_s: float | None


class RunRecord(TypedDict):
    """A row of `runs` (an agent run, a bench run), its `meta` decoded."""

    id: int
    kind: str
    status: str
    meta: dict[str, Any]
    started: float
    finished: float | None


def sha256_of_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def to_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class Store:
    """A workspace folder: `workspace.sqlite` plus `artifacts/<sha[:2]>/<sha>` files."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.artifact_dir = self.folder / "artifacts"
        try:
            self.artifact_dir.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(
                self.folder / DATABASE_NAME,
                isolation_level=None,
                check_same_thread=False,
                timeout=30.0,
            )
        except (OSError, sqlite3.Error) as error:
            raise StoreError(
                f"Cannot open the workspace at {self.folder}: {error}. "
                "Check that the folder exists and is writable, or choose another workspace."
            ) from error
        self._connection.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA foreign_keys=ON")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._migrate()

    # -- plumbing -------------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        return int(self._connection.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        with self.transaction():
            current = self.schema_version
            for version, script in enumerate(MIGRATIONS, start=1):
                if version > current:
                    for statement in script:
                        self._connection.execute(statement)
                    self._connection.execute(f"PRAGMA user_version={version}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; nested uses join the outer one."""
        with self._lock:
            outer = self._depth == 0
            if outer:
                self._connection.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield self._connection
            except BaseException:
                self._depth -= 1
                if outer:
                    self._connection.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outer:
                self._connection.execute("COMMIT")

    def query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._connection.execute(sql, parameters).fetchall()

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    # -- tool calls -----------------------------------------------------------------------------
    def begin_tool_call(self, *, tool: str, caller: str, arguments: object) -> int:
        """Record a call before it runs, so a crash mid-call still leaves its trace."""
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO tool_calls (tool, caller, arguments, started) VALUES (?, ?, ?, ?)",
                (tool, caller, to_json(arguments), time.time()),
            )
            return int(cursor.lastrowid or 0)

    def finish_tool_call(
        self,
        call_id: int,
        *,
        ok: bool,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        duration_s: float,
    ) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE tool_calls SET ok = ?, result = ?, error = ?, duration_s = ? WHERE id = ?",
                (
                    int(ok),
                    None if result is None else to_json(result),
                    None if error is None else to_json(error),
                    duration_s,
                    call_id,
                ),
            )

    def tool_calls(self, tool: str | None = None) -> list[ToolCallRecord]:
        sql = "SELECT * FROM tool_calls" + (" WHERE tool = ?" if tool else "") + " ORDER BY id"
        rows = self.query(sql, (tool,) if tool else ())
        return [
            ToolCallRecord(
                id=row["id"],
                tool=row["tool"],
                caller=row["caller"],
                arguments=json.loads(row["arguments"]),
                ok=None if row["ok"] is None else bool(row["ok"]),
                result=json.loads(row["result"]) if row["result"] else None,
                error=json.loads(row["error"]) if row["error"] else None,
                started=row["started"],
                duration_s=row["duration_s"],
            )
            for row in rows
        ]

    # -- artifacts ------------------------------------------------------------------------------
    def add_artifact(
        self,
        source: Path,
        *,
        name: str | None = None,
        kind: str = "file",
        meta: dict[str, Any] | None = None,
        tool_call_id: int | None = None,
    ) -> Artifact:
        """Copy `source` into the content-addressed folder and index it."""
        source = Path(source)
        if not source.is_file():
            raise StoreError(f"Cannot add artifact: {source} is not a file.")
        digest = sha256_of_file(source)
        target = self.artifact_dir / digest[:2] / digest
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".part")
            shutil.copyfile(source, partial)
            partial.replace(target)
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO artifacts (sha256, name, kind, size, meta, tool_call_id, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    digest,
                    name or source.name,
                    kind,
                    target.stat().st_size,
                    to_json(meta or {}),
                    tool_call_id,
                    time.time(),
                ),
            )
            artifact_id = int(cursor.lastrowid or 0)
        return self.artifact(artifact_id)

    def discard_artifacts_of_call(self, tool_call_id: int) -> None:
        """Forget what a failed call stored; a file goes once no other artifact row shares it."""
        with self.transaction() as db:
            digests = [
                row["sha256"]
                for row in db.execute(
                    "SELECT sha256 FROM artifacts WHERE tool_call_id = ?", (tool_call_id,)
                )
            ]
            db.execute("DELETE FROM artifacts WHERE tool_call_id = ?", (tool_call_id,))
            for digest in set(digests):
                still_used = db.execute(
                    "SELECT 1 FROM artifacts WHERE sha256 = ? LIMIT 1", (digest,)
                ).fetchone()
                if not still_used:
                    (self.artifact_dir / digest[:2] / digest).unlink(missing_ok=True)

    def artifact(self, artifact_id: int) -> Artifact:
        rows = self.query("SELECT * FROM artifacts WHERE id = ?", (artifact_id,))
        if not rows:
            raise StoreError(f"No artifact with id {artifact_id} in {self.folder}.")
        return self._artifact(rows[0])

    def artifacts(self, kind: str | None = None) -> list[Artifact]:
        sql = "SELECT * FROM artifacts" + (" WHERE kind = ?" if kind else "") + " ORDER BY id"
        return [self._artifact(row) for row in self.query(sql, (kind,) if kind else ())]

    def _artifact(self, row: sqlite3.Row) -> Artifact:
        digest = row["sha256"]
        return Artifact(
            id=row["id"],
            sha256=digest,
            name=row["name"],
            kind=row["kind"],
            path=self.artifact_dir / digest[:2] / digest,
            size=row["size"],
            meta=json.loads(row["meta"]),
            tool_call_id=row["tool_call_id"],
        )

    # -- runs -----------------------------------------------------------------------------------
    def start_run(self, kind: str, meta: dict[str, Any] | None = None) -> int:
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO runs (kind, status, meta, started) VALUES (?, 'running', ?, ?)",
                (kind, to_json(meta or {}), time.time()),
            )
            return int(cursor.lastrowid or 0)

    def finish_run(self, run_id: int, status: str, meta: dict[str, Any] | None = None) -> None:
        with self.transaction() as db:
            if meta is not None:
                db.execute("UPDATE runs SET meta = ? WHERE id = ?", (to_json(meta), run_id))
            db.execute(
                "UPDATE runs SET status = ?, finished = ? WHERE id = ?",
                (status, time.time(), run_id),
            )

    def update_run(self, run_id: int, status: str, meta: dict[str, Any]) -> None:
        """Replace a run's status and meta while it goes on (`finish_run` also stamps its end)."""
        with self.transaction() as db:
            cursor = db.execute(
                "UPDATE runs SET status = ?, meta = ? WHERE id = ?", (status, to_json(meta), run_id)
            )
            if cursor.rowcount == 0:
                raise StoreError(f"No run with id {run_id} in {self.folder}.")

    def runs(self, kind: str | None = None) -> list[RunRecord]:
        sql = "SELECT * FROM runs" + (" WHERE kind = ?" if kind else "") + " ORDER BY id"
        return [
            RunRecord(
                id=row["id"],
                kind=row["kind"],
                status=row["status"],
                meta=json.loads(row["meta"]),
                started=row["started"],
                finished=row["finished"],
            )
            for row in self.query(sql, (kind,) if kind else ())
        ]

    # -- benchmark cells ------------------------------------------------------------------------
    def record_bench_cell(self, run_id: int | None, cell: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO bench_cells (run_id, cell_key, suite, task, model, seed, status,"
                " scores, record, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    cell["key"],
                    cell["suite"],
                    cell["task"],
                    cell["model"],
                    cell["seed"],
                    cell["status"],
                    to_json(cell.get("scores", {})),
                    to_json(cell),
                    time.time(),
                ),
            )

    def bench_cells(self, suite: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT record FROM bench_cells" + (" WHERE suite = ?" if suite else "")
        rows = self.query(sql + " ORDER BY id", (suite,) if suite else ())
        return [json.loads(row["record"]) for row in rows]
