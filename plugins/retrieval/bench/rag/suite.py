"""The bench suite `rag-beams2d`: four prompts of rising retrieval demand (P0-P3) x three
conditions (rag, no_rag, empty_rag), gated scoring (scoring.py).

Each cell runs in its own workspace (the runner gives one); the condition is set up there
(conditions.py: the index lives in that workspace). The score is bound to an artifact: the
record keeps the optimize_design call the parameters were read from, with its arguments and the
design's hashes as the workspace store holds it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from workbench.bench import BenchTask, CellContext, Suite
from workbench.core.context import AppContext
from workbench_plugins.retrieval.bench.rag import conditions, policies, scoring
from workbench_plugins.retrieval.bench.rag.prompts import (
    CONDITION_ABOUT,
    CONDITIONS,
    PROMPTS,
    prompt,
)

NAME = "rag-beams2d"
KEPT_RESULT_KEYS = ("design_sha256", "design_artifact_path", "final_c", "query", "mode", "note")


class RagSuite(Suite):
    name = NAME
    description = (
        "Gated RAG benchmark on Beams2D (EngiAI A.2): prompts P0-P3 over the lab's own reference "
        "documents; conditions rag, no_rag, empty_rag; reference and off-target policies, or an "
        "agent."
    )

    def tasks(self) -> list[BenchTask]:
        return [
            BenchTask(
                f"{item.id}/{condition}",
                problem="beams2d",
                style=item.id,
                condition=condition,
                smoke=item.id == "P3" and condition == "rag",
                payload={"prompt": item.id},
            )
            for item in PROMPTS
            for condition in CONDITIONS
        ]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> dict[str, Any]:
        started = time.perf_counter()
        item = prompt(str(task.payload["prompt"]))
        prepared = conditions.prepare(cell.app, task.condition)
        if policies.is_direct(model):
            run = policies.play_direct(model, item, cell.app, seed)
        else:
            run = policies.play_agent(model, item, cell.app, task.condition, cell.budget)
        scores = scoring.score(run.calls, item.targets)
        details = {
            "prompt": item.text,
            "condition": task.condition,
            "condition_about": CONDITION_ABOUT[task.condition],
            "targets": item.targets,
            "indexed": list(prepared.indexed),
            "offered_tools": list(prepared.offered_tools),
            "hidden_specialists": list(prepared.hidden_specialists),
            "read_from": run.read_from,
            "parameters": {p: scoring.read_parameter(run.calls, p).__dict__ for p in item.targets},
            "artifact": bound_artifact(cell.app, run.calls, item.targets),
            "calls": [_call_record(call, cell) for call in run.calls],
            "agent": {"status": run.status, "error": run.error, "model_calls": run.model_calls},
            "tokens": {"in": run.tokens_in, "out": run.tokens_out},
            "timing": {"wall_s": round(time.perf_counter() - started, 4)},  # volatile
        }
        return {**scores, "details": details}

    def smoke_tasks(self) -> list[BenchTask]:
        return [task for task in self.tasks() if task.smoke]


def bound_artifact(
    app: AppContext, calls: list[scoring.ToolCall], targets: dict[str, float]
) -> dict[str, Any] | None:
    """The optimize_design call the score reads and the design it stored: its arguments, the
    design's hash as the tool reported it and as the store holds it (file sha256 and meta)."""
    index = scoring.scored_call(calls, targets)
    if index is None:
        return None
    call = calls[index]
    result = call.result or {}
    bound: dict[str, Any] = {
        "call_index": index,
        "arguments": call.args,
        "ok": call.ok,
        "design_sha256": result.get("design_sha256"),
        "artifact_sha256": None,
        "bound": False,
    }
    path = result.get("design_artifact_path")
    stored = next((a for a in app.store.artifacts() if path and str(a.path) == path), None)
    if stored is not None:
        bound["artifact_sha256"] = stored.sha256
        bound["artifact_id"] = stored.id
        # the store's record of the design is the one the call reports: the score is its
        bound["bound"] = stored.meta.get("design_sha256") == result.get("design_sha256")
    return bound


def _call_record(call: scoring.ToolCall, cell: CellContext) -> dict[str, Any]:
    result = call.result or {}
    kept = {k: _portable(result[k], cell) for k in KEPT_RESULT_KEYS if k in result}
    if "passages" in result:
        kept["passages"] = [
            {k: p.get(k) for k in ("rank", "source", "page", "score")} for p in result["passages"]
        ]
    return {"tool": call.name, "ok": call.ok, "args": _portable(call.args, cell), "result": kept}


def _portable(value: Any, cell: CellContext) -> Any:
    """No absolute path of this machine in a record: the cell's folder becomes <cell>."""
    if isinstance(value, str):
        return value.replace(str(cell.folder), "<cell>").replace(str(Path.home()), "~")
    if isinstance(value, dict):
        return {key: _portable(item, cell) for key, item in value.items()}
    if isinstance(value, list):
        return [_portable(item, cell) for item in value]
    return value


def suites() -> list[Suite]:
    return [RagSuite()]
