"""execute_cli_command: run one allowlisted command, checked before a person is asked, in its
own process group, announced on the bus (the command log follows it)."""

from __future__ import annotations

import asyncio
import threading

from pydantic import BaseModel, Field

from workbench.core.settings import SettingsError
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.shell.config import SECTION, ShellSettings
from workbench_plugins.shell.events import CommandFinished, CommandStarted, CommandStopRequested
from workbench_plugins.shell.policy import Prepared, prepare
from workbench_plugins.shell.runner import Finished, run_prepared


class CommandArgs(BaseModel):
    command: list[str] | str = Field(
        ...,
        description="The program and its arguments as a list, e.g. ['ls', '-l', 'outputs'] "
        "(a string is split like a shell would split words, nothing more)",
    )
    cwd: str = Field(".", description="Working folder inside the workspace ('.': the workspace)")
    timeout: float | None = Field(
        None, gt=0, le=3600, description="Seconds before the command is stopped (default 60)"
    )


class CommandResult(BaseModel):
    command: list[str]
    command_line: str = Field(description="The exact command, quoted as a shell would need it")
    cwd: str
    exit_code: int | None = Field(description="None when it was stopped or timed out")
    duration_s: float
    state: str
    stdout: str
    stderr: str
    truncated: bool = Field(description="Output was longer than the cap; only its start is kept")
    note: str = ""


def settings_of(context: ToolContext) -> ShellSettings:
    try:
        return context.app.settings.plugin("shell", ShellSettings)
    except SettingsError as invalid:  # the message names the field and what to fix
        raise ToolFailure(str(invalid), "Fix the settings; nothing was run.") from None


def prepared_command(args: CommandArgs, context: ToolContext) -> Prepared:
    """Every check, touching nothing (the registry runs it before asking a person, so a command
    that would be refused is refused, not asked about)."""
    return prepare(
        args.command, args.cwd, args.timeout, settings_of(context), context.confinement()
    )


def confirmation_text(args: CommandArgs, context: ToolContext) -> str:
    """What a person sees before saying yes: the exact command and where it runs."""
    prepared = prepared_command(args, context)
    return f"Run: {prepared.command_line}\nIn: {prepared.cwd}"


def check_command(args: CommandArgs, context: ToolContext) -> None:
    prepared_command(args, context)


async def execute_cli_command(args: CommandArgs, context: ToolContext) -> CommandResult:
    prepared = prepared_command(args, context)
    bus, run_id = context.app.bus, context.call_id
    stop = threading.Event()

    def stop_requested(event: CommandStopRequested) -> None:
        if event.run_id == run_id:
            stop.set()

    unsubscribe = bus.subscribe(CommandStopRequested, stop_requested)
    bus.publish(CommandStarted(run_id=run_id, argv=list(prepared.argv), cwd=str(prepared.cwd)))
    try:
        finished = await asyncio.to_thread(run_prepared, prepared, stop)
    except BaseException:  # cancelled (the agent's run stopped): end the process group too
        stop.set()
        bus.publish(_finished_event(run_id, prepared, None))
        raise
    finally:
        unsubscribe()
    result = _result(prepared, finished)
    bus.publish(_finished_event(run_id, prepared, result))
    return result


def _state(prepared: Prepared, finished: Finished) -> str:
    if finished.timed_out:
        return f"timed out after {prepared.timeout_s:g} s: the process group was killed"
    if finished.stopped:
        return "stopped by a person: the process group was killed"
    return f"exit {finished.exit_code}"


def _result(prepared: Prepared, finished: Finished) -> CommandResult:
    cap = prepared.max_output_bytes
    truncated = finished.stdout_bytes > cap or finished.stderr_bytes > cap
    notes = [prepared.note] if prepared.note else []
    for name, total in (("stdout", finished.stdout_bytes), ("stderr", finished.stderr_bytes)):
        if total > cap:
            notes.append(
                f"{name} was {total} bytes; only the first {cap} are kept (max_output_bytes "
                f"in [{SECTION}])"
            )
    return CommandResult(
        command=list(prepared.argv),
        command_line=prepared.command_line,
        cwd=str(prepared.cwd),
        exit_code=finished.exit_code,
        duration_s=round(finished.duration_s, 3),
        state=_state(prepared, finished),
        stdout=finished.stdout,
        stderr=finished.stderr,
        truncated=truncated,
        note="; ".join(notes),
    )


def _finished_event(
    run_id: int, prepared: Prepared, result: CommandResult | None
) -> CommandFinished:
    output = "" if result is None else result.stdout + result.stderr
    return CommandFinished(
        run_id=run_id,
        argv=list(prepared.argv),
        cwd=str(prepared.cwd),
        exit_code=None if result is None else result.exit_code,
        duration_s=0.0 if result is None else result.duration_s,
        output=output,
        state="cancelled with the agent's run" if result is None else result.state,
    )
