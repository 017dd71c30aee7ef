"""Shell tests: an app context with the shell tools, and a way to change its shell settings."""

from __future__ import annotations

from typing import Any

from tests.support.plugin_app import plugin_app_fixtures
from workbench.core.tools import ToolOutcome
from workbench_plugins.shell.config import ShellSettings

app, workspace = plugin_app_fixtures("shell")


def configure(app: Any, **changes: Any) -> None:
    """Change [plugins.shell] (and `allowed_folders`, given as `allowed_folders=`) in the app."""
    folders = changes.pop("allowed_folders", None)
    current = app.settings.plugin("shell", ShellSettings)
    settings = app.settings.with_plugin("shell", current.model_copy(update=changes))
    if folders is not None:
        settings = settings.model_copy(update={"allowed_folders": folders})
    app.settings = settings


def allow(app: Any, *programs: str) -> None:
    current = app.settings.plugin("shell", ShellSettings)
    configure(app, allowed_programs=[*current.allowed_programs, *programs])


def run(app: Any, command: list[str] | str, **extra: Any) -> ToolOutcome:
    """execute_cli_command as the agent calls it, after the engineer said yes."""
    outcome: ToolOutcome = app.registry.call(
        "execute_cli_command", {"command": command, **extra}, caller="agent:shell", confirmed=True
    )
    return outcome


def ran(app: Any, command: list[str] | str, **extra: Any) -> dict[str, Any]:
    """The result of a confirmed command that ran (whatever its exit code)."""
    outcome = run(app, command, **extra)
    assert outcome.ok and outcome.result is not None, outcome.error
    return outcome.result


def refusal(app: Any, command: list[str] | str, **extra: Any) -> str:
    """The refusal of a command (confirmed, so only the checks can stop it): message and hint."""
    outcome = run(app, command, **extra)
    assert not outcome.ok and outcome.error is not None, f"{command!r} ran: {outcome.result}"
    assert outcome.error.kind == "failed", outcome.error
    return outcome.error.explain()
