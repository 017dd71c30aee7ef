"""The `prompt-overhead` suite: tokens of system prompt + tool schemas per model call, each
specialist (its own short tool list) against one agent holding every installed tool."""

from __future__ import annotations

from workbench.agents.overhead import prompt_overhead
from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.cell_result import CellResult


class PromptOverheadSuite(Suite):
    name = "prompt-overhead"
    description = "Prompt + tool-schema tokens per specialist call vs a single all-tools agent."
    headline = ("routed_call_max_tokens", "single_agent_tokens")

    def tasks(self) -> list[BenchTask]:
        return [BenchTask("installed-specialists", problem="agents", smoke=True)]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        report = prompt_overhead(cell.app)
        scores: dict[str, float] = {
            "supervisor_tokens": report["supervisor"]["total_tokens"],
            "single_agent_tokens": report["single_agent"]["total_tokens"],
            "routed_call_max_tokens": report["routed_call_max_tokens"],
            "single_agent_to_largest_specialist": report["single_agent_to_largest_specialist"],
        }
        for name, cost in report["specialists"].items():
            scores[f"specialist_{name}_tokens"] = cost["total_tokens"]
        return CellResult({name: float(value) for name, value in scores.items()}, report)
