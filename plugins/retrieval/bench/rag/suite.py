"""The bench suite `rag-beams2d`: four prompts of rising retrieval demand (P0-P3) x three
conditions (rag, no_rag, empty_rag), gated scoring (scoring.py).

Each cell runs in its own workspace (the runner gives one); the condition is set up there
(conditions.py: the index lives in that workspace). The score is bound to the designs it rests on
(workbench.bench.earned): each optimize_design call it reads must have stored, in the cell's
workspace, the design it reported (its design_sha256 in the store's record, the file unchanged);
a binding that does not hold zeroes rag_accuracy. The report (report.py) draws EngiAI Fig 6.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.earned import Binding, CellResult
from workbench.bench.results import CellRecord
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
    headline = ("rag_accuracy",)
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

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        started = time.perf_counter()
        item = prompt(str(task.payload["prompt"]))
        prepared = conditions.prepare(cell.app, task.condition)
        if policies.is_direct(model):
            run = policies.play_direct(model, item, cell.app, seed)
        else:
            run = policies.play_agent(model, item, cell.app, task.condition, cell.budget)
        scores = scoring.score(run.calls, item.targets)
        bindings, artifacts = design_bindings(cell.app, run.calls, item.targets)
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
            "artifacts": _portable(artifacts, cell),
            "calls": [_call_record(call, cell) for call in run.calls],
            "agent": {
                "status": run.status,
                "error": run.error,
                "model_calls": run.model_calls,
                # the final message: kept to read, never scored (only the calls' work counts)
                "answer": _portable(run.answer, cell),
            },
            "tokens": {"in": run.tokens_in, "out": run.tokens_out},
            "timing": {"wall_s": round(time.perf_counter() - started, 4)},  # volatile
        }
        return CellResult(scores, details, bindings, self.headline)

    def smoke_tasks(self) -> list[BenchTask]:
        return [task for task in self.tasks() if task.smoke]

    def report(self, folder: Path, cells: list[CellRecord]) -> Path | None:
        from workbench_plugins.retrieval.bench.rag.report import write_report

        return write_report(folder, cells) if cells else None


def design_bindings(
    app: AppContext, calls: list[scoring.ToolCall], targets: dict[str, float]
) -> tuple[list[Binding], list[dict[str, Any]]]:
    """The bindings of the designs the score rests on (scoring.bound_calls), and for the record
    each one's call, arguments and hashes. Per design: the store holds an artifact at the path
    the call reported, whose recorded design_sha256 is the call's; and that file is still the
    bytes the store recorded. A call whose design the store lacks binds to nothing: broken."""
    bindings: list[Binding] = []
    records: list[dict[str, Any]] = []
    for index in scoring.bound_calls(calls, targets):
        result = calls[index].result or {}
        reported = str(result.get("design_sha256") or "")
        path = str(result.get("design_artifact_path") or "")
        stored = next((a for a in app.store.artifacts() if path and str(a.path) == path), None)
        what = f"design of call {index} (optimize_design)"
        held = stored.meta.get("design_sha256") if stored is not None else None
        bindings.append(Binding(f"{what}: design_sha256 in the store", reported, held))
        if stored is not None:
            bindings.append(Binding.to_file(f"{what}: stored file", stored.path, stored.sha256))
        records.append(
            {
                "call_index": index,
                "arguments": calls[index].args,
                "design_sha256": reported,
                "artifact_id": stored.id if stored is not None else None,
                "artifact_sha256": stored.sha256 if stored is not None else None,
            }
        )
    return bindings, records


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
