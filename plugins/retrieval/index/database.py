"""The index's own SQLite database in the workspace: documents, passages, FTS5 and vectors.

Keyword search is FTS5 with the porter tokenizer and BM25 ranking (both in the standard library's
sqlite3). A document is replaced in one transaction, so a reader or a crash sees the old version
or the new one whole, never half of each.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import numpy as np

from workbench_plugins.retrieval.index.chunking import Chunk

INDEX_FILE = Path(".workbench") / "documents.sqlite"
ROWS_PER_REPORT = 500  # passages written between two progress reports (and cancel checks)
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS documents (
        id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, sha256 TEXT NOT NULL,
        kind TEXT NOT NULL, pages INTEGER NOT NULL, chunks INTEGER NOT NULL,
        size INTEGER NOT NULL, indexed_at REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS chunks (
        id INTEGER PRIMARY KEY,
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL, page INTEGER, section TEXT NOT NULL, text TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks(document_id)",
    """CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
        text, section, content='chunks', content_rowid='id', tokenize='porter unicode61')""",
    # the FTS table follows the passages it indexes (external content: text stored once)
    """CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text, section) VALUES (new.id, new.text, new.section); END""",
    """CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, section)
        VALUES ('delete', old.id, old.text, old.section); END""",
    """CREATE TABLE IF NOT EXISTS vectors (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        model TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (chunk_id, model))""",
)


@dataclass(frozen=True)
class DocumentInfo:
    path: str
    sha256: str
    kind: str
    pages: int
    chunks: int
    size: int
    indexed_at: float


@dataclass(frozen=True)
class Passage:
    chunk_id: int
    path: str
    page: int | None
    section: str
    text: str
    snippet: str = ""


class DocumentIndex:
    """One open index database; use it from one thread, and close it (or use `with`)."""

    def __init__(self, database: Path) -> None:
        database.parent.mkdir(parents=True, exist_ok=True)
        self.database = database
        self._db = sqlite3.connect(database, isolation_level=None, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        for statement in _SCHEMA:
            self._db.execute(statement)

    @classmethod
    def of_workspace(cls, workspace: Path) -> DocumentIndex:
        return cls(Path(workspace) / INDEX_FILE)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> DocumentIndex:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- documents ------------------------------------------------------------------------------
    def documents(self) -> list[DocumentInfo]:
        rows = self._db.execute(
            "SELECT path, sha256, kind, pages, chunks, size, indexed_at FROM documents "
            "ORDER BY path"
        )
        return [DocumentInfo(*row) for row in rows]

    def document(self, path: str) -> DocumentInfo | None:
        row = self._db.execute(
            "SELECT path, sha256, kind, pages, chunks, size, indexed_at FROM documents "
            "WHERE path = ?",
            (path,),
        ).fetchone()
        return None if row is None else DocumentInfo(*row)

    def replace(
        self,
        info: DocumentInfo,
        chunks: list[Chunk],
        vectors: tuple[str, np.ndarray] | None = None,
        on_rows: Callable[[int, int], None] | None = None,
    ) -> None:
        """Put `info` and its passages in place of any older version, in one transaction.

        `on_rows(written, total)` is called every ROWS_PER_REPORT passages and once before the
        commit; an exception from it (a cancel) rolls the whole document back."""
        with self._transaction() as db:
            db.execute("DELETE FROM documents WHERE path = ?", (info.path,))
            cursor = db.execute(
                "INSERT INTO documents (path, sha256, kind, pages, chunks, size, indexed_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    info.path,
                    info.sha256,
                    info.kind,
                    info.pages,
                    len(chunks),
                    info.size,
                    time.time(),
                ),
            )
            document_id = cursor.lastrowid
            ids = []
            for ordinal, piece in enumerate(chunks):
                row = db.execute(
                    "INSERT INTO chunks (document_id, ordinal, page, section, text) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (document_id, ordinal, piece.page, piece.section, piece.text),
                )
                ids.append(int(row.lastrowid or 0))
                if on_rows is not None and len(ids) % ROWS_PER_REPORT == 0:
                    on_rows(len(ids), len(chunks))
            if vectors is not None:
                self._put_vectors(vectors[0], ids, vectors[1])
            if on_rows is not None:
                on_rows(len(chunks), len(chunks))

    def delete(self, path: str) -> bool:
        with self._transaction() as db:
            return db.execute("DELETE FROM documents WHERE path = ?", (path,)).rowcount > 0

    # -- keyword search -------------------------------------------------------------------------
    def keyword(self, query: str, limit: int) -> list[tuple[Passage, float]]:
        """Passages matching any word of `query`, best BM25 first (score: higher is better)."""
        words = re.findall(r"\w+", query.lower())
        if not words:
            return []
        match = " OR ".join(f'"{word}"' for word in dict.fromkeys(words))
        rows = self._db.execute(
            "SELECT c.id, d.path, c.page, c.section, c.text, "
            "snippet(chunks_fts, 0, '[', ']', ' ... ', 32), bm25(chunks_fts) AS rank "
            "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
            "JOIN documents d ON d.id = c.document_id "
            "WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?",
            (match, limit),
        )
        return [(Passage(*row[:6]), -float(row[6])) for row in rows]

    def passages(self, ids: list[int]) -> dict[int, Passage]:
        marks = ",".join("?" * len(ids))
        rows = self._db.execute(
            "SELECT c.id, d.path, c.page, c.section, c.text FROM chunks c "
            f"JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks})",
            ids,
        )
        return {row[0]: Passage(*row) for row in rows}

    def chunk_count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    # -- vectors --------------------------------------------------------------------------------
    def unembedded(self, model: str) -> list[tuple[int, str]]:
        rows = self._db.execute(
            "SELECT c.id, c.text FROM chunks c LEFT JOIN vectors v "
            "ON v.chunk_id = c.id AND v.model = ? WHERE v.chunk_id IS NULL ORDER BY c.id",
            (model,),
        )
        return [(int(row[0]), str(row[1])) for row in rows]

    def add_vectors(self, model: str, ids: list[int], matrix: np.ndarray) -> None:
        with self._transaction():
            self._put_vectors(model, ids, matrix)

    def _put_vectors(self, model: str, ids: list[int], matrix: np.ndarray) -> None:
        matrix = np.asarray(matrix, dtype=np.float32)
        self._db.executemany(
            "INSERT OR REPLACE INTO vectors (chunk_id, model, vector) VALUES (?, ?, ?)",
            [(chunk_id, model, row.tobytes()) for chunk_id, row in zip(ids, matrix, strict=True)],
        )

    def vectors(self, model: str) -> tuple[list[int], np.ndarray]:
        rows = self._db.execute(
            "SELECT chunk_id, vector FROM vectors WHERE model = ? ORDER BY chunk_id", (model,)
        ).fetchall()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        matrix = np.stack([np.frombuffer(row[1], dtype=np.float32) for row in rows])
        return [int(row[0]) for row in rows], matrix
