"""The `prompt-overhead` suite: tokens of system prompt + tool schemas per model call, each
specialist (its own short tool list) against one agent holding every installed tool."""

from __future__ import annotations

from typing import Any

from workbench.agents.overhead import prompt_overhead
from workbench.bench import BenchTask, CellContext, Suite


class PromptOverheadSuite(Suite):
    name = "prompt-overhead"
    description = "Prompt + tool-schema tokens per specialist call vs a single all-tools agent."

    def tasks(self) -> list[BenchTask]:
        return [BenchTask("installed-specialists", problem="agents", smoke=True)]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> dict[str, Any]:
        report = prompt_overhead(cell.app)
        scores: dict[str, Any] = {
            "supervisor_tokens": report["supervisor"]["total_tokens"],
            "single_agent_tokens": report["single_agent"]["total_tokens"],
            "routed_call_max_tokens": report["routed_call_max_tokens"],
            "single_agent_to_largest_specialist": report["single_agent_to_largest_specialist"],
        }
        for name, cost in report["specialists"].items():
            scores[f"specialist_{name}_tokens"] = cost["total_tokens"]
        return {**scores, "details": report}
