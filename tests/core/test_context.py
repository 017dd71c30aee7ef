"""Closing the app closes what plugins opened for it, latest first, even if one of them fails."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from workbench.core.context import AppContext


def test_closers_run_latest_first_and_a_failing_one_does_not_stop_the_rest(
    workbench_home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = AppContext.open()
    closed: list[str] = []

    def broken() -> None:
        raise RuntimeError("device gone")

    app.on_close(lambda: closed.append("first"))
    app.on_close(broken)
    app.on_close(lambda: closed.append("last"))
    app.close()
    assert closed == ["last", "first"]
    assert "device gone" in caplog.text
    with pytest.raises(sqlite3.ProgrammingError):  # the store was closed after them
        app.store.tool_calls()
