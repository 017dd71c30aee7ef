"""A task run in its own thread, for the chat and the GUI (which must never wait for it).

The run shows in the jobs bar like any job: JobStarted, JobProgress after every turn (turns and
wall time against their limits), JobFinished; the bar's Cancel (JobCancelRequested for its job
id) stops it after the current step, as `TaskRunHandle.cancel()` does. The run's own events
(TaskRunStarted, TaskRunTurn, TaskRunFinished) go on the app's bus for the Modelica views.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from workbench.core.context import AppContext
from workbench.core.events import (
    Event,
    JobCancelRequested,
    JobFinished,
    JobProgress,
    JobStarted,
)
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.driver.run_task import (
    EventHandler,
    PreparedRun,
    TaskRunRecord,
    drive_run,
    prepare_run,
)
from workbench_plugins.modelica.events import TaskRunFinished, TaskRunStarted, TaskRunTurn

log = logging.getLogger(__name__)
RUNS_FOLDER = "modelica-runs"  # in the app's workspace: one folder per run
_HANDLES: dict[str, TaskRunHandle] = {}
_HANDLES_LOCK = threading.Lock()


@dataclass
class TaskRunHandle:
    run_id: str
    task_id: str
    mode: str
    model: str
    out: Path
    record: TaskRunRecord | None = None
    error: str = ""  # the run crashed (a bug, or a task the harness refused)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _finished: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def job_id(self) -> str:
        return f"modelica-task:{self.run_id}"

    def cancel(self) -> None:
        """Stop after the current step (a model reply in flight is cut short)."""
        self._stop.set()

    def cancelled(self) -> bool:
        return self._stop.is_set()

    def done(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> TaskRunRecord | None:
        """The record once the run has ended (None if it crashed or `timeout` passed first)."""
        self._finished.wait(timeout)
        return self.record


def handle_of(run_id: str) -> TaskRunHandle | None:
    """The handle of a run started in this process (the view cancels runs the chat started)."""
    with _HANDLES_LOCK:
        return _HANDLES.get(run_id)


def start_task_run(
    app: AppContext,
    task: harness.Task,
    *,
    model: str | BaseChatModel | None = None,
    mode: str = "harness",
    out: Path | None = None,
    on_event: EventHandler | None = None,
) -> TaskRunHandle:
    """Start `task` with `model` (default: the settings' model) in a thread; returns at once.

    `on_event` also hears the agent events (model calls, tool calls) of the run."""
    if mode not in ("harness", "plain"):
        raise ValueError(f"Unknown mode {mode!r}; choose harness or plain.")
    chosen = model if model is not None else app.settings.model
    run_id = f"{task.task_id}-{uuid.uuid4().hex[:8]}"
    handle = TaskRunHandle(
        run_id=run_id,
        task_id=task.task_id,
        mode=mode,
        model=chosen if isinstance(chosen, str) else f"custom:{chosen._llm_type}",
        out=Path(out) if out is not None else app.store.folder / RUNS_FOLDER / run_id,
    )

    def forward(event: Event) -> None:
        if isinstance(event, TaskRunStarted | TaskRunTurn | TaskRunFinished):
            app.bus.publish(event)
        if isinstance(event, TaskRunTurn):
            app.bus.publish(_progress(handle.job_id, event))
        if on_event is not None:
            on_event(event)

    # made here, so the workspace exists and a bad task or model is refused before returning
    prepared = prepare_run(
        app,
        task,
        chosen,
        handle.out,
        mode=mode,
        on_event=forward,
        cancel=handle._stop,
        run_id=run_id,
    )
    with _HANDLES_LOCK:
        _HANDLES[run_id] = handle

    def cancel_requested(event: JobCancelRequested) -> None:
        if event.job_id == handle.job_id:
            handle.cancel()

    unsubscribe = app.bus.subscribe(JobCancelRequested, cancel_requested)
    app.bus.publish(
        JobStarted(source="modelica", job_id=handle.job_id, title=f"{task.task_id} ({mode})")
    )
    thread = threading.Thread(
        target=_work,
        args=(app, prepared, handle, unsubscribe),
        name=f"modelica-task-{run_id}",
        daemon=True,
    )
    thread.start()
    return handle


def _work(
    app: AppContext,
    prepared: PreparedRun,
    handle: TaskRunHandle,
    unsubscribe: Callable[[], None],
) -> None:
    try:
        handle.record = drive_run(prepared)
    except Exception as crash:  # reported on the jobs bar; the thread must end cleanly
        log.exception("Modelica task run %s failed", handle.run_id)
        handle.error = f"{type(crash).__name__}: {crash}"
        app.bus.publish(TaskRunFinished(run_id=handle.run_id, status="error", reason=handle.error))
    finally:
        unsubscribe()
        app.bus.publish(_finished(handle))
        handle._finished.set()


def _progress(job_id: str, turn: TaskRunTurn) -> JobProgress:
    """The jobs bar's bar: the larger of the turns and the wall time used."""
    fraction = max(turn.turn / turn.max_turns, turn.elapsed_s / turn.wall_time_s)
    return JobProgress(
        source="modelica",
        job_id=job_id,
        fraction=min(fraction, 1.0),
        message=(
            f"turn {turn.turn}/{turn.max_turns}, {turn.elapsed_s:.0f}/{turn.wall_time_s:g} s, "
            f"{turn.simulations} simulations"
        ),
        data={"run_id": turn.run_id, "logical_tokens": turn.logical_tokens},
    )


def _finished(handle: TaskRunHandle) -> JobFinished:
    record = handle.record
    if handle.cancelled() and not (record and record.status == "submitted"):
        return JobFinished(source="modelica", job_id=handle.job_id, status="cancelled")
    if record is None or record.status == "error":
        reason = handle.error or (record.reason if record else "the run did not finish")
        return JobFinished(source="modelica", job_id=handle.job_id, status="failed", error=reason)
    return JobFinished(source="modelica", job_id=handle.job_id, status="done")
