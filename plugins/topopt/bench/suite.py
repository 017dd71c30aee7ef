"""The bench suites `workflow-beams2d` (7 styles) and `workflow-photonics2d` (3 styles).

One task per (style, example); the cell's seed draws the conditions and export parameters, so
`--seeds 0 1 2` with the 5 examples is the paper's 3 seeds x 5 samples. Tasks are ordered
example-major, so `--examples N` takes whole examples across all styles first.

A cell's record is deterministic except for the keys in VOLATILE_KEYS (wall-clock figures):
paths are written relative to the cell or workspace folder, never absolute.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.earned import CLAIMS_WITHOUT_WORK, CellResult, succeeded
from workbench.bench.tool_calls import PolicyRun
from workbench_plugins.topopt import engine
from workbench_plugins.topopt.bench import ground_truth, policies, scoring, tasks
from workbench_plugins.topopt.bench.timing import EngiBenchClock

# The default selection (example 0, played by the reference): the export workflow on both
# problems and Beams2D's abstention; the one short agent cell plays AGENT_SMOKE_STYLE on Beams2D
SMOKE_STYLES = {"beams2d": ("W-RAND", "NATURAL"), "photonics2d": ("W-RAND",)}
AGENT_SMOKE_STYLE = "W-RAND"
VOLATILE_KEYS = ("duration_s", "details.timing")  # what differs between two identical runs
DESIGNS_FILE = "designs.npz"
DESIGN_TOOLS = (
    "optimize_design",
    "simulate_design",
    "render_design",
    "convert_design_to_stl",
)  # agent design and ground truth, for the report's comparisons
KEPT_RESULT_KEYS = (
    "c",
    "total_overlap",
    "final_c",
    "final_total_overlap",
    "threshold",
    "scale_xy",
    "scale_z",
    "mirrored",
    "is_watertight",
    "num_components",
    "design_shape",
    "save_path",
    "npy_path",
    "stl_path",
    "question",
    "design_sha256",  # which design each call worked on: task completion is judged by it
    "stl_sha256",  # the STL as exported: the scores resting on it are bound to it
)


class WorkflowSuite(Suite):
    report_group = "workflow"  # one report.html covers both problems
    headline = ("combined", "task_completion")
    presets = tasks.PRESETS  # `bench --preset paper`: EngiBench's default optimiser settings

    def __init__(self, problem: str) -> None:
        self.problem = problem
        self.name = f"workflow-{problem}"
        self.description = (
            f"EngiAI workflow benchmark on {problem}: "
            f"{', '.join(tasks.styles(problem))}; reference and off-target policies, or an agent."
        )

    def tasks(self) -> list[BenchTask]:
        return [
            BenchTask(
                f"{self.problem}/{style}/e{example}",
                problem=self.problem,
                style=style,
                smoke=example == 0 and style in SMOKE_STYLES[self.problem],
                payload={"example": example},
            )
            for example in range(tasks.EXAMPLES)
            for style in tasks.styles(self.problem)
        ]

    def report(self, folder: Path, cells: list[dict[str, Any]]) -> Path:
        """scores.csv and report.html in the results folder (all cells there, every suite)."""
        from workbench_plugins.topopt.bench.report import write_report

        return write_report(folder)

    def smoke_tasks(self) -> list[BenchTask]:
        return [task for task in self.tasks() if task.smoke]

    def agent_smoke_task(self) -> BenchTask | None:
        if self.problem != "beams2d":  # one agent cell is enough; Beams2D's optimiser is quicker
            return None
        return next(t for t in self.smoke_tasks() if t.style == AGENT_SMOKE_STYLE)

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        started = time.perf_counter()
        example = int(task.payload["example"])
        clock = EngiBenchClock()
        preset = cell.preset
        spec = tasks.build(self.problem, task.style, seed, example, preset=preset)
        engine.problem_class(self.problem)  # imported before the clock: not EngiBench time

        def truth_of() -> ground_truth.GroundTruth:
            truth = ground_truth.ground_truth(
                cell.app.paths.cache_dir, self.problem, spec.conditions, spec.config, seed
            )
            clock.add(truth.computed_s)
            return truth

        # claims-without-work states the ground truth's values as its own: it needs them
        wants_truth = tasks.needs_target(task.style) or model == CLAIMS_WITHOUT_WORK
        truth = truth_of() if wants_truth else None
        if truth is not None:
            spec = tasks.build(
                self.problem, task.style, seed, example, target=truth.objective, preset=preset
            )
        objective = truth.objective if truth else math.nan
        with clock.watching(cell.app):
            run, wall = policies.play(model, spec, cell.app, cell.folder, cell.budget, objective)
        if truth is None and any(c.name in DESIGN_TOOLS for c in succeeded(run.calls)):
            truth = truth_of()  # an abstaining NATURAL cell (or one that did nothing) needs none
        if truth is None:
            scores, design = scoring.score_cell(run.calls, spec, np.zeros((0, 0)), math.nan)
        else:
            scores, design = scoring.score_cell(run.calls, spec, truth.design, truth.objective)
            designs: dict[str, Any] = {"truth": truth.design}
            if design is not None:
                designs["agent"] = design
            np.savez_compressed(cell.folder / DESIGNS_FILE, **designs)
        scores.update(tokens_in=float(run.tokens_in), tokens_out=float(run.tokens_out))
        details = _details(spec, run, truth, _PortablePaths(cell))
        details["preset"] = tasks.preset_name(preset)
        details["timing"] = {  # volatile
            "wall_s": round(time.perf_counter() - started, 4),
            "policy_s": round(wall, 4),
            "engibench_s": round(clock.total_s, 4),
            "streaming_s": round(clock.streaming_s, 4),
            "ground_truth_s": round(truth.computed_s if truth else 0.0, 4),
            "model_latency_s": round(run.model_latency_s, 4),
        }
        # the STL files the scores rest on: one gone or changed since its export zeroes them
        bindings = scoring.stl_bindings(run.calls, spec)
        return CellResult(scores, details, bindings, self.headline)


def _details(
    spec: tasks.TaskSpec,
    run: PolicyRun,
    truth: ground_truth.GroundTruth | None,
    portable: _PortablePaths,
) -> dict[str, Any]:
    """What a cell's record keeps besides its scores (the timing is added by the caller)."""
    return {
        "example": spec.example,
        "conditions": spec.conditions,
        "problem_config": spec.config,
        "expected_exports": [export.as_dict() for export in spec.draws.expected],
        "draws": spec.draws.extra,
        "optimal_calls": list(spec.optimal_calls),
        "target_objective": truth.objective if truth else None,
        "ground_truth": {"key": truth.key, "source": truth.source} if truth else None,
        "prompt": spec.prompt,
        "calls": [portable.call_record(call) for call in run.calls],
        "agent": {
            "status": run.status,
            "error": portable(run.error),
            "model_calls": run.model_calls,
            # what the simulated engineer answered (the answer is part of the task)
            "human_answers": run.extra.get("human_answers", []),
            # the final message: kept to read, never scored (only the calls' work counts)
            "answer": portable(run.answer),
        },
        "designs_file": DESIGNS_FILE if truth else None,
    }


class _PortablePaths:
    """Rewrites values so a record holds no absolute path of this machine and run: paths become
    <cell>/..., <workspace>/... or a bare file name."""

    def __init__(self, cell: CellContext) -> None:
        self.prefixes = [
            (str(cell.folder), "<cell>"),
            (str(cell.app.store.folder), "<workspace>"),
        ]

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            for prefix, name in self.prefixes:
                value = value.replace(prefix, name)
            if value.startswith("/") and "\n" not in value:
                return Path(value).name
            return value
        if isinstance(value, dict):
            return {key: self(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self(item) for item in value]
        return value

    def call_record(self, call: scoring.ToolCall) -> dict[str, Any]:
        """What a cell's record keeps of one tool call."""
        result = call.result or {}
        return {
            "tool": call.name,
            "ok": call.ok,
            "args": self(call.args),
            "result": self({k: result[k] for k in KEPT_RESULT_KEYS if k in result}),
        }


def suites() -> list[Suite]:
    return [WorkflowSuite("beams2d"), WorkflowSuite("photonics2d")]
