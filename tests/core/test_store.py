"""The workspace store: WAL, migrations, content-addressed artifacts, runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.core.migrations import MIGRATIONS
from workbench.core.store import Store, StoreError


def test_wal_mode_and_migrated_schema(tmp_path: Path) -> None:
    store = Store(tmp_path / "ws")
    assert store.query("PRAGMA journal_mode")[0][0] == "wal"
    assert store.schema_version == len(MIGRATIONS)
    store.close()
    reopened = Store(tmp_path / "ws")  # migrating again is a no-op
    assert reopened.schema_version == len(MIGRATIONS)


def test_artifacts_are_content_addressed(tmp_path: Path) -> None:
    store = Store(tmp_path / "ws")
    (tmp_path / "a.txt").write_text("same")
    (tmp_path / "b.txt").write_text("same")
    first = store.add_artifact(tmp_path / "a.txt", kind="note")
    second = store.add_artifact(tmp_path / "b.txt", kind="note", meta={"n": 2})
    assert first.sha256 == second.sha256 and first.id != second.id
    assert first.path.read_text() == "same"
    assert [a.name for a in store.artifacts("note")] == ["a.txt", "b.txt"]
    assert store.artifact(second.id).meta == {"n": 2}
    with pytest.raises(StoreError, match="not a file"):
        store.add_artifact(tmp_path / "missing.txt")


def test_unwritable_workspace_gives_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="Cannot open the workspace"):
        Store(blocker / "ws")


def test_failed_transaction_rolls_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "ws")
    with pytest.raises(RuntimeError), store.transaction() as db:
        db.execute("INSERT INTO runs (kind, status, meta, started) VALUES ('x', 'r', '{}', 0)")
        raise RuntimeError("crash mid-write")
    assert store.runs() == []
    run = store.start_run("bench", {"out": "o"})
    store.finish_run(run, "done")
    assert store.runs()[0]["status"] == "done"
