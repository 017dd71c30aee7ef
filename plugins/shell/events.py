"""What the command log view hears: a command started or finished, and a person's Stop."""

from __future__ import annotations

from workbench.core.events import Event


class CommandStarted(Event):
    source: str = "shell"
    run_id: int  # the tool call's id in the workspace store
    argv: list[str]
    cwd: str


class CommandFinished(Event):
    source: str = "shell"
    run_id: int
    argv: list[str]
    cwd: str
    exit_code: int | None
    duration_s: float
    output: str  # stdout, then stderr, as the log shows them
    state: str  # "exit 0", "timed out after 60 s", "stopped", ...


class CommandStopRequested(Event):
    """A person asked to stop a running command (the command log's Stop button)."""

    source: str = "person"
    run_id: int
