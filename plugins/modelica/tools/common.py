"""What every Modelica tool shares: the `run` argument, finding that run, the plugin settings."""

from __future__ import annotations

from pydantic import BaseModel, Field

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.modelica import harness
from workbench_plugins.modelica.settings import ModelicaSettings


def settings_of(context: ToolContext) -> ModelicaSettings:
    return context.app.settings.plugin("modelica", ModelicaSettings)


class RunArg(BaseModel):
    run: str | None = Field(None, description="task run id; empty: the single running task, if any")


def optional_run(args: RunArg) -> harness.Run | None:
    """The task run the call names, or the single running one; None outside task runs."""
    return harness.find_run(args.run)


def required_run(args: RunArg) -> harness.Run:
    """As `optional_run`, for tools that only make sense on a task's ledger."""
    run = harness.find_run(args.run)
    if run is None:
        raise ToolFailure(
            "No Modelica task run is active, and this tool works on a task's ledger.",
            "Start a task run (harness.start_run) or name it with 'run'.",
        )
    return run
