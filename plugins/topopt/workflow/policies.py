"""Who plays a cell's tool calls.

- `reference`: the optimal calls with the right arguments; it validates every evaluator.
- `offtarget:<mistake>`: the reference with one characteristic mistake, on the styles it targets
  (elsewhere it plays the reference).
- any other model spec: the agent (workbench.agents) on the task's prompt.

Direct policies call tools through the registry with caller "bench:<policy>", exactly as the
GUI and the agent do.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.context import AppContext
from workbench_plugins.topopt.workflow.scoring import ToolCall
from workbench_plugins.topopt.workflow.tasks import Export, TaskSpec


class HarnessFailure(RuntimeError):
    """The harness, not the policy, failed (model server unreachable, tool crashed)."""


@dataclass
class PolicyRun:
    calls: list[ToolCall]
    tokens_in: int = 0
    tokens_out: int = 0
    model_latency_s: float = 0.0
    model_calls: int = 0
    status: str = "done"
    error: str = ""
    answer: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# -- direct policies ------------------------------------------------------------------------------
@dataclass(frozen=True)
class OffTarget:
    styles: tuple[str, ...]
    checks: str  # the score that must drop: "task_completion" or "tool_use"
    about: str


OFF_TARGET: dict[str, OffTarget] = {
    "inverted-branch": OffTarget(("W-COND",), "task_completion", "takes the other W-COND branch"),
    "preview-values": OffTarget(
        ("W-DISTRACT",), "task_completion", "exports with the preview threshold and XY scale"
    ),
    "swapped-multi": OffTarget(("W-MULTI",), "task_completion", "exports B first, then A"),
    "merged-multi": OffTarget(("W-MULTI",), "task_completion", "one export with A's values"),
    "wrong-arithmetic": OffTarget(
        ("W-DERIVED",), "task_completion", "scale_xy = rmin (forgets the factor 2)"
    ),
    "no-clarification": OffTarget(
        ("NATURAL",), "task_completion", "guesses numbers and designs instead of asking"
    ),
    "missing-render": OffTarget(("FULL",), "task_completion", "optimises and simulates, no render"),
    "redundant-calls": OffTarget(
        ("FULL", "W-RAND", "W-DERIVED", "W-DISTRACT", "W-COND", "W-MULTI"),
        "tool_use",
        "asks for problem details and simulates twice",
    ),
}
GUESSED = {"volfrac": 0.4, "forcedist": 0.5, "rmin": 2.0}  # what "no-clarification" assumes
# Model calls an agent gets per cell, interrupts answered included: W-MULTI's optimal run, one
# tool call per reply, takes 7 (hand-off, 4 calls, report, answer). Three times that leaves room
# for detours and retries, and stops a looping model instead of letting it fill its context.
AGENT_MAX_MODEL_CALLS = 20


def is_direct(model: str) -> bool:
    return model == "reference" or model.startswith("offtarget:")


class _Player:
    """Plays calls through the registry and records them; a crash of a tool is a harness error."""

    def __init__(self, app: AppContext, caller: str) -> None:
        self.app, self.caller, self.calls = app, caller, []  # type: list[ToolCall]

    def __call__(self, name: str, **args: Any) -> dict[str, Any]:
        outcome = self.app.registry.call(name, args, caller=self.caller)
        if outcome.error is not None and outcome.error.kind == "internal":
            raise HarnessFailure(outcome.error.explain())
        self.calls.append(ToolCall(name, args, outcome.ok, outcome.result))
        if not outcome.ok:  # a direct policy's calls are meant to succeed: that is a harness bug
            detail = outcome.error.explain() if outcome.error else "failed"
            raise HarnessFailure(f"{self.caller}: {name} failed: {detail}")
        return outcome.result or {}


def _stl_args(export: Export) -> dict[str, Any]:
    return {
        "threshold": export.threshold,
        "scale_xy": export.scale_xy,
        "scale_z": export.scale_z,
        "mirror_y": export.mirror_y,
    }


def play_direct(model: str, task: TaskSpec, app: AppContext, folder: Path) -> PolicyRun:
    mistake = model.removeprefix("offtarget:") if model.startswith("offtarget:") else ""
    if mistake and mistake not in OFF_TARGET:
        raise HarnessFailure(
            f"Unknown off-target policy {model!r}; known: "
            + ", ".join(f"offtarget:{name}" for name in OFF_TARGET)
        )
    if mistake and task.style not in OFF_TARGET[mistake].styles:
        mistake = ""  # not a targeted cell: play the reference
    call = _Player(app, f"bench:{model}")
    problem, seed, config = task.problem, task.seed, dict(task.config)
    if task.style == "NATURAL" and mistake != "no-clarification":
        call(
            "ask_human_for_clarification",
            clarification_request="Which volume fraction, force position (0-1) and filter "
            "radius should the beam use?",
        )
        return PolicyRun(call.calls)
    if task.style == "NATURAL":
        config = dict(GUESSED)
    if mistake == "redundant-calls":
        call("get_problem_details", problem_type=problem)
    optimized = call("optimize_design", problem_type=problem, problem_config=config, seed=seed)
    npy = optimized["save_path"]
    simulated: dict[str, Any] = {}
    if "simulate_design" in task.optimal_calls or task.style == "NATURAL":
        simulated = call("simulate_design", problem_type=problem, design_description=npy, seed=seed)
        if mistake == "redundant-calls":
            call("simulate_design", problem_type=problem, design_description=npy, seed=seed)
    if task.style in ("FULL", "NATURAL"):
        if mistake != "missing-render":
            png = str(folder / "design.png")
            call("render_design", problem_type=problem, design_description=npy, save_path=png)
        return PolicyRun(call.calls)
    for index, export in enumerate(_exports(task, mistake, simulated)):
        call(
            "convert_design_to_stl",
            problem_type=problem,
            npy_file_path=npy,
            stl_file_path=str(folder / f"export_{index}.stl"),
            **_stl_args(export),
        )
    return PolicyRun(call.calls)


def _exports(task: TaskSpec, mistake: str, simulated: dict[str, Any]) -> list[Export]:
    expected = list(task.draws.expected)
    extra = task.draws.extra
    if task.style == "W-COND":  # decide like an agent would: on the simulated value
        value = float(simulated.get(task.objective, float("nan")))
        branch = "high" if value > extra["limit"] else "low"
        if mistake == "inverted-branch":
            branch = "low" if branch == "high" else "high"
        return [Export(**extra["branches"][branch])]
    if mistake == "preview-values":
        real = expected[0]
        return [
            Export(
                extra["preview_threshold"], real.mirror_y, extra["preview_scale_xy"], real.scale_z
            )
        ]
    if mistake == "swapped-multi":
        return expected[::-1]
    if mistake == "merged-multi":
        return expected[:1]
    if mistake == "wrong-arithmetic":
        real = expected[0]
        return [Export(real.threshold, real.mirror_y, float(task.conditions["rmin"]), real.scale_z)]
    return expected


# -- the agent -------------------------------------------------------------------------------------
def agent_prompt(task: TaskSpec) -> str:
    return f"{task.prompt}\n\nIMPORTANT: Use seed={task.seed} when calling tools."


def play_agent(
    model: str,
    task: TaskSpec,
    app: AppContext,
    make_runtime: Callable[[AppContext, str], Any] | None = None,
) -> PolicyRun:
    """Run the agent on the prompt; a model that answers badly scores low, an unreachable one
    is a harness failure (the cell is retried on resume)."""
    from workbench.agents import AgentRuntime, BackendError, HeadlessPolicy
    from workbench.agents.events import AgentError, ModelCalled, ToolFinished, ToolStarted

    try:
        runtime = (
            make_runtime(app, model)
            if make_runtime
            else AgentRuntime(
                app, model, policy=HeadlessPolicy(), max_model_calls=AGENT_MAX_MODEL_CALLS
            )
        )
    except BackendError as error:
        raise HarnessFailure(str(error)) from error
    try:
        result = runtime.send_sync(f"bench-{uuid.uuid4().hex[:12]}", agent_prompt(task))
    finally:
        runtime.close()
    unreachable = [
        e for e in result.events if isinstance(e, AgentError) and e.kind == "model_unreachable"
    ]
    if unreachable:
        raise HarnessFailure(unreachable[0].message)
    started: dict[str, ToolStarted] = {}
    calls: list[ToolCall] = []
    run = PolicyRun(calls, status=result.status, error=result.error, answer=result.answer)
    for event in result.events:
        if isinstance(event, ToolStarted) and not event.tool.startswith("transfer_to_"):
            started[event.tool_call_id] = event
        elif isinstance(event, ToolFinished) and event.tool_call_id in started:
            arguments = started.pop(event.tool_call_id).arguments
            args = arguments if isinstance(arguments, dict) else {"raw": arguments}
            calls.append(ToolCall(event.tool, args, event.ok, event.result))
        elif isinstance(event, ModelCalled):
            run.tokens_in += event.input_tokens
            run.tokens_out += event.output_tokens
            run.model_latency_s += event.latency_s
            run.model_calls += 1
    return run


def play(model: str, task: TaskSpec, app: AppContext, folder: Path) -> tuple[PolicyRun, float]:
    started = time.perf_counter()
    run = (
        play_direct(model, task, app, folder) if is_direct(model) else play_agent(model, task, app)
    )
    return run, time.perf_counter() - started
