"""The CLI specialist's tools: run one allowlisted command (confirmed by a person), and say what
is allowed.

- `execute`: execute_cli_command (the checks, the confirmation text, the run and its events)
- `allowed`: list_allowed_commands
"""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.shell.tools.allowed import AllowedCommands, NoArgs, list_allowed_commands
from workbench_plugins.shell.tools.execute import (
    CommandArgs,
    CommandResult,
    check_command,
    confirmation_text,
    execute_cli_command,
)


def tools() -> list[Tool]:
    return [
        Tool(
            "execute_cli_command",
            "Run one allowlisted command-line program (argument list, no shell) in a folder of "
            "the workspace, after the engineer confirms the exact command; returns exit code, "
            "output (capped) and duration.",
            CommandArgs,
            CommandResult,
            execute_cli_command,
            SideEffect.PHYSICAL,
            files=check_command,
            confirm_shows=confirmation_text,  # the exact command and its folder, in every ask
        ),
        Tool(
            "list_allowed_commands",
            "The programs the shell may run (and whether each is installed), the rules, the "
            "timeout and the output cap.",
            NoArgs,
            AllowedCommands,
            list_allowed_commands,
            SideEffect.READ,
        ),
    ]
