"""A stopped run must not leave the conversations' checkpoint file locked for the next run.

What a rare Stop left behind (found by repeating the chat's Stop-then-send test until it hung,
then listing the live SQLite objects): the run's last checkpoint INSERT without its COMMIT, and
one of its cursors still alive in a reference cycle. Closing the connection then keeps the write
transaction (a SQLite "zombie" connection), and the next run's first write waited on the lock.
This test builds that state on purpose, with the real saver and a SCRIPTED model.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.agents.conftest import say
from workbench.core.context import AppContext


def test_a_write_left_uncommitted_by_a_stopped_run_does_not_block_the_next_with_scripted_model(
    app: AppContext, scripted: Any
) -> None:
    runtime, _ = scripted([say("Hello again.")])
    kept_alive: list[Any] = []

    async def scenario() -> None:
        async with runtime.checkpoints.saver() as saver:
            connection = saver.conn
            async with connection.execute("CREATE TABLE IF NOT EXISTS stray (x)"):
                pass
            # a cursor in the middle of its rows, which outlives the run (as one did in a cycle)
            kept_alive.append(await connection.execute("SELECT name FROM sqlite_master"))
            # the stopped run's last write: the INSERT ran, its COMMIT never came
            async with connection.execute("INSERT INTO stray VALUES (1)"):
                pass
        result = await asyncio.wait_for(runtime.send("t", "Are you there?"), timeout=20)
        assert result.status == "done" and result.answer == "Hello again.", result.error

    asyncio.run(scenario())
    assert kept_alive  # held to the end on purpose
