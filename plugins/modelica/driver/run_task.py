"""One task run by a model, start to end: what the headless command and the bench call.

`run_task` makes the run (workspace `out/workspace`, submission `out/submission.json` in the
public format, outside the workspace), drives it in harness or plain mode with the agents' turn
loop, and writes `out/run.json`: the `TaskRunRecord` (status, turns, model calls, simulations,
wall time, real token counts, tool calls). The evaluator judges submission.json afterwards; the
run never learns its verdict.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel

from workbench.agents.backends import make_chat_model
from workbench.agents.toolbridge import caller_of
from workbench.agents.turn_loop import LoopResult, Turn, TurnLoop
from workbench.core.context import AppContext
from workbench.core.events import Event
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.driver.modes import drive_harness, drive_plain
from workbench_plugins.modelica.driver.task_source import public_verifier, task_from_public
from workbench_plugins.modelica.events import TaskRunFinished, TaskRunStarted, TaskRunTurn
from workbench_plugins.modelica.specialist import PLAIN_TOOL_NAMES, RUN_TOOL_NAMES

log = logging.getLogger(__name__)
Mode = Literal["harness", "plain"]
MODES: tuple[str, ...] = ("harness", "plain")
RUN_RECORD = "run.json"
EventHandler = Callable[[Event], None]


@dataclass
class TaskRunRecord:
    task_id: str
    mode: str
    model: str
    status: str  # "submitted" | "failure_to_submit" | "error"
    reason: str
    run_id: str
    candidate_id: str | None
    turns: int
    model_calls: int
    simulations: int
    wall_time_s: float
    tokens: dict[str, int]  # input_uncached, cache_creation, cache_read, output, logical
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {"name", "ok"}
    submission_path: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """One line for a person (the headless command prints it)."""
        why = f" ({self.reason})" if self.reason else ""
        return (
            f"{self.task_id} [{self.mode}, {self.model}]: {self.status}{why}; {self.turns} turns, "
            f"{self.simulations} simulations, {self.tokens.get('logical', 0):,} logical tokens, "
            f"{self.wall_time_s:.1f} s"
        )


@dataclass
class PreparedRun:
    """A run made and its loop set up, not yet driven (background.py drives it in a thread)."""

    run: harness.Run
    loop: TurnLoop
    mode: str
    out: Path
    emit: EventHandler


def run_task(
    app: AppContext,
    task: harness.Task,
    model: str | BaseChatModel,
    out: Path,
    *,
    mode: str = "harness",
    limits: harness.Limits | None = None,
    on_event: EventHandler | None = None,
    cancel: threading.Event | None = None,
    run_id: str | None = None,
) -> TaskRunRecord:
    """Run `task` with `model` (a spec such as "ollama:qwen3:4b", or a chat model) to its end.

    `on_event` hears the agent events (ModelCalled, ToolStarted, ToolFinished, Token) and
    TaskRunStarted/TaskRunTurn/TaskRunFinished; `cancel` stops the run between steps."""
    prepared = prepare_run(
        app,
        task,
        model,
        out,
        mode=mode,
        limits=limits,
        on_event=on_event,
        cancel=cancel,
        run_id=run_id,
    )
    return drive_run(prepared)


def prepare_run(
    app: AppContext,
    task: harness.Task,
    model: str | BaseChatModel,
    out: Path,
    *,
    mode: str = "harness",
    limits: harness.Limits | None = None,
    on_event: EventHandler | None = None,
    cancel: threading.Event | None = None,
    run_id: str | None = None,
) -> PreparedRun:
    """The run (its workspace written, registered) and its turn loop; a bad mode or model spec
    is refused here, before anything is made."""
    if mode not in MODES:
        raise ValueError(f"Unknown mode {mode!r}; choose harness or plain.")
    if limits is not None:
        task = task.model_copy(update={"limits": limits})
    chat, model_name = _chat_model(app, model)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    agent = f"modelica-{mode}"
    run = harness.start_run(
        task,
        out,
        app.ledger,
        output=out,
        verify=public_verifier(app),
        run_id=run_id,
        driver=caller_of(agent),  # the loop's tool calls; nobody else acts on the run
    )
    emit = _emitter(on_event)
    loop = TurnLoop(
        app,
        chat,
        _tools(run, mode),
        model_name=model_name,
        agent=agent,
        on_event=emit,
        cancel=cancel,
        deadline_s=max(task.limits.wall_time_s - run.elapsed_s, 0.0),
        arguments=lambda _tool, arguments: {**arguments, "run": run.id},
    )
    return PreparedRun(run, loop, mode, out, emit)


def drive_run(prepared: PreparedRun) -> TaskRunRecord:
    """Drive a prepared run to its end; writes run.json."""
    run, loop, mode, emit = prepared.run, prepared.loop, prepared.mode, prepared.emit
    emit(
        TaskRunStarted(
            run_id=run.id,
            task_id=run.task.task_id,
            mode=mode,
            profile=run.profile.name,
            model=loop.model_name,
            limits=run.task.limits.model_dump(),
        )
    )
    drive = drive_harness if mode == "harness" else drive_plain
    result = drive(run, loop, lambda turn: emit(_turn_event(run, turn)))
    _settle(run, result, mode)
    record = _record(run, result, mode, loop.model_name)
    (prepared.out / RUN_RECORD).write_text(json.dumps(record.to_json(), indent=2), encoding="utf-8")
    emit(
        TaskRunFinished(
            run_id=run.id,
            status=record.status,
            reason=record.reason,
            submission_path=record.submission_path,
        )
    )
    return record


def run_task_file(
    app: AppContext,
    path: Path,
    *,
    model: str,
    out: Path,
    mode: str = "harness",
    on_event: EventHandler | None = None,
    cancel: threading.Event | None = None,
) -> TaskRunRecord:
    """`run_task` on a task JSON file in the public format (its benchmark library included)."""
    task = task_from_public(Path(path))
    return run_task(app, task, model, out, mode=mode, on_event=on_event, cancel=cancel)


def _chat_model(app: AppContext, model: str | BaseChatModel) -> tuple[BaseChatModel, str]:
    if isinstance(model, BaseChatModel):
        return model, f"custom:{model._llm_type}"
    return make_chat_model(model, app.settings), model


def _tools(run: harness.Run, mode: str) -> list[str]:
    names = RUN_TOOL_NAMES if mode == "harness" else PLAIN_TOOL_NAMES
    return [name for name in names if name in run.profile.permitted]


def _emitter(on_event: EventHandler | None) -> EventHandler:
    def emit(event: Event) -> None:
        if on_event is None:
            return
        try:
            on_event(event)
        except Exception:  # a broken listener (a view) must not end the run
            log.exception("task run event handler failed on %s", event)

    return emit


def _turn_event(run: harness.Run, turn: Turn) -> TaskRunTurn:
    last = turn.tool_results[-1] if turn.tool_results else None
    limits = run.task.limits
    return TaskRunTurn(
        run_id=run.id,
        turn=run.turns,
        max_turns=limits.turns,
        elapsed_s=run.elapsed_s,
        wall_time_s=limits.wall_time_s,
        simulations=len(run.simulations),
        max_simulations=limits.simulations,
        logical_tokens=run.logical_tokens,
        state=run.state,
        last_tool=last.name if last else "",
        last_ok=last.ok if last else False,
    )


def _settle(run: harness.Run, result: LoopResult, mode: str) -> None:
    """End the run the way the loop ended; the plain loop's answer is submitted for it."""
    limits = run.task.limits
    if result.ending == "deadline":
        run.end(f"limit reached: wall time {limits.wall_time_s:g} s")
    elif result.ending == "cancelled":
        run.end("cancelled by the engineer")
    elif result.ending == "error":
        run.end(f"the model failed: {result.error}")
    if mode != "plain" or run.state == "submitted" or result.ending in ("cancelled", "error"):
        return
    if run.state == "running":
        run.end("the model stopped")
    wrote = any(
        call.ok and call.name == "write_file" for turn in result.turns for call in turn.tool_results
    )
    made = bool(run.parameters) if run.profile.name == "tuning" else wrote
    if made and run.candidate is not None:
        last_text = next((t.text for t in reversed(result.turns) if t.text.strip()), "")
        run.submit_implicitly(last_text or f"implicit submission ({run.reason})")


def _record(run: harness.Run, result: LoopResult, mode: str, model: str) -> TaskRunRecord:
    outcome = run.finish()
    status = "error" if result.ending == "error" and not run.submission else outcome.status
    submitted = run.submission_file()
    return TaskRunRecord(
        task_id=run.task.task_id,
        mode=mode,
        model=model,
        status=status,
        reason=run.reason if status != "submitted" else "",
        run_id=run.id,
        candidate_id=outcome.candidate_id,
        turns=outcome.turns,
        model_calls=result.model_calls,
        simulations=outcome.simulations,
        wall_time_s=round(outcome.wall_time_s, 3),
        tokens={**outcome.tokens, "logical": outcome.logical_tokens},
        tool_calls=[
            {"name": c.name, "ok": c.ok} for turn in result.turns for c in turn.tool_results
        ],
        submission_path=str(submitted) if run.submission and submitted.is_file() else "",
    )
