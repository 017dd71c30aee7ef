"""A benchmark cell never gets specialists from the user's external MCP servers: its score must
not depend on what this machine has configured. The same settings give the user's own runs the
server's specialist (the REAL test server over stdio), so the test would fail if sealing did
nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.mcp_servers.conftest import configure, stdio_server
from workbench.bench.earned import CellResult
from workbench.bench.executors import PlannedCell, execute_cell
from workbench.bench.suite import BenchTask, CellContext, Suite
from workbench.core.context import AppContext
from workbench.core.plugins import contributed_specialists


class SpecialistsSeen(Suite):
    """A suite whose only cell reports the contributed specialists its app would route to."""

    name = "specialists-seen"

    def tasks(self) -> list[BenchTask]:
        return [BenchTask(id="seen")]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        found, problems = asyncio.run(contributed_specialists(cell.app.plugins, cell.app))
        return CellResult({}, {"names": [s.name for s in found], "problems": problems})


def test_a_bench_cell_gets_no_specialist_from_the_users_mcp_servers(
    context: AppContext, tmp_path: Path
) -> None:
    configure(context, stdio_server())
    users, _ = asyncio.run(contributed_specialists(context.plugins, context))
    assert [s.name for s in users] == ["mcp_bench"]  # the user's own runs do get it

    suite = SpecialistsSeen()
    cell = PlannedCell(suite.name, suite.tasks()[0], "reference", 0)
    record = execute_cell(suite, cell, context, tmp_path / "out")

    assert record["status"] == "ok", record.get("error")
    # the record lists the result's bindings too (none here)
    assert record["details"] == {"names": [], "problems": [], "bindings": []}
