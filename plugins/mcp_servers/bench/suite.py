"""The bench suite `mcp-roundtrip`: one task per tool (`roundtrip/<tool>`), its payload the tool,
its arguments and how many calls. A cell plays its policy (policies.py), seals the MCP answers
in `<cell>/mcp_results.json` and is scored from that file and the server's store (scoring.py).
The scores are bound to the sealed file (workbench.bench.earned): the file as recorded must be
the bytes that were judged, else `faithful` is 0. The suite scores no agent's tool use (any
model plays the reference), so it has no cheating policies of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.earned import Binding, CellResult
from workbench.bench.results import CellRecord
from workbench_plugins.mcp_servers.bench.policies import (
    CLIENT_NAME,
    SERVER_HOME,
    play,
    policy_of,
    workbench_server,
)
from workbench_plugins.mcp_servers.bench.report import write_report
from workbench_plugins.mcp_servers.bench.scoring import (
    RESULTS,
    VARYING_FIELDS,
    judge,
    scores_of,
    seal,
)

SUITE = "mcp-roundtrip"
QUICK_OPTIMISATION = {"problem_type": "beams2d", "problem_config": {"max_iter": 5}, "seed": 0}


def task(
    tool: str, arguments: dict[str, Any], calls: int, style: str, smoke: bool = False
) -> BenchTask:
    return BenchTask(
        f"roundtrip/{tool}",
        problem=tool,
        style=style,
        condition=f"{calls} calls",
        smoke=smoke,
        payload={"tool": tool, "arguments": arguments, "calls": calls},
    )


class RoundtripSuite(Suite):
    name = SUITE
    headline = ("faithful",)
    description = (
        "Workbench's tools through MCP (its own stdio server, on the plugin's kept session) "
        "against the same calls made directly in the cell: overhead, ratio, and whether every "
        "answer is faithful (sealed file vs the server's own store). Measures no model: any "
        "model other than the offtarget: policies plays the reference."
    )

    def tasks(self) -> list[BenchTask]:
        return [
            task("list_problems", {}, 20, "read", smoke=True),
            task("get_problem_details", {"problem_type": "beams2d"}, 10, "read"),
            task("optimize_design", QUICK_OPTIMISATION, 3, "compute"),
        ]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        tool = str(task.payload["tool"])
        arguments = dict(task.payload["arguments"])
        count = int(task.payload["calls"])
        policy = policy_of(model)
        played = play(model, tool, arguments, count, cell)
        seal(cell.folder, played, tool, arguments, policy)
        verdict = judge(cell.folder, tool, arguments, count, played.direct, cell.app.store.folder)
        server = workbench_server(cell.folder)
        details = {
            "policy": policy,
            "tool": tool,
            "arguments": arguments,
            "results": {"file": RESULTS, "sha256": verdict.sha256},
            "problems": verdict.problems,
            "server": {
                "command": server.target(),
                "home": SERVER_HOME,
                "caller": f"mcp:{CLIENT_NAME}",
                "calls_recorded": verdict.server_calls,
                "tools_listed": played.listed_tools,
            },
            "not_compared": [*sorted(VARYING_FIELDS), "the workspace folder in paths"],
            "mcp_ms_each": [round(ms, 3) for ms in verdict.mcp_ms],
            "direct_ms_each": [round(ms, 3) for ms in played.direct_ms],
        }
        sealed = Binding.to_file(f"sealed {RESULTS}", cell.folder / RESULTS, verdict.sha256)
        return CellResult(scores_of(verdict, played), details, [sealed], self.headline)

    def report(self, folder: Path, cells: list[CellRecord]) -> Path | None:
        return write_report(folder, cells) if cells else None
