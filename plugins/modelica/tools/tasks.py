"""`start_modelica_task`: the chat starts a task run that a model works in the background.

The task is a public-format task JSON (a file, or the object inline) or, for a generation task, a
brief in words. The run goes on in its own thread (driver.background): the call returns at once
with the run's id, limits and workspace; the jobs bar shows and cancels it, the Modelica tasks
view follows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from workbench.core.context import AppContext
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.tools.common import ToolArgs


class StartTaskArgs(ToolArgs):
    task_path: str = ""
    task: dict[str, Any] | None = None  # the task JSON inline
    brief: str = ""  # a generation task in words
    model_name: str = ""  # a model profile's name (never a URL or file); default: the settings'
    mode: Literal["harness", "plain"] = "harness"


class StartTaskResult(BaseModel):
    run_id: str
    task_id: str
    profile: str
    mode: str
    model: str
    limits: dict[str, Any]
    workspace: str
    out: str
    job_id: str


def task_of(args: StartTaskArgs, context: ToolContext) -> harness.Task:
    """The one task the call names, from a file, an inline object or a brief."""
    from workbench_plugins.modelica.driver.task_source import task_from_brief, task_from_public

    given = [name for name in ("task_path", "task", "brief") if getattr(args, name)]
    if len(given) != 1:
        raise ToolFailure(
            "Name exactly one task: task_path, task (inline JSON) or brief"
            + (f"; got {', '.join(given)}." if given else "; got none."),
        )
    if args.task_path:
        return task_from_public(context.file(args.task_path, mode="read"))
    if args.task is not None:
        return task_from_public(args.task)
    return task_from_brief(args.brief)


def task_file(args: StartTaskArgs, context: ToolContext) -> None:
    """The registry's `files`: a task file outside the workspace needs a person's yes."""
    if args.task_path:
        context.file(args.task_path, mode="read")


def start_modelica_task(args: StartTaskArgs, context: ToolContext) -> StartTaskResult:
    from workbench.agents.errors import BackendError
    from workbench.core.settings_model_access import ModelNotAllowed, resolve_for_caller
    from workbench_plugins.modelica.driver.background import start_task_run

    app = context.app
    if not isinstance(app, AppContext):
        raise ToolFailure("Task runs need the whole app (a model, the jobs bar), not a tool host.")
    task = task_of(args, context)
    try:
        # a caller names a profile only: a URL of its choosing would receive the person's key
        model = resolve_for_caller(args.model_name, app.settings)
        handle = start_task_run(app, task, model=model, mode=args.mode)
    except ModelNotAllowed as refused:
        raise ToolFailure(str(refused), "Name a model profile in model_name.") from None
    except BackendError as error:
        raise ToolFailure(str(error), "Name a usable model in model_name or settings.") from None
    return StartTaskResult(
        run_id=handle.run_id,
        task_id=task.task_id,
        profile=task.profile,
        mode=handle.mode,
        model=handle.model,
        limits=task.limits.model_dump(),
        workspace=str(Path(handle.out) / "workspace"),
        out=str(handle.out),
        job_id=handle.job_id,
    )


def task_tools() -> list[Tool]:
    return [
        Tool(
            "start_modelica_task",
            "A model works a task (JSON file, inline or brief) in the background.",
            StartTaskArgs,
            StartTaskResult,
            start_modelica_task,
            SideEffect.COMPUTE,
            files=task_file,
        )
    ]
