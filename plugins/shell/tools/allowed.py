"""list_allowed_commands: what the shell may run (and where each program is), and the rules."""

from __future__ import annotations

from pydantic import BaseModel, Field

from workbench.core.tools import ToolContext
from workbench_plugins.shell.policy import locate
from workbench_plugins.shell.tools.execute import settings_of


class NoArgs(BaseModel):
    pass


class AllowedProgram(BaseModel):
    program: str
    found_at: str = Field(description="Where it is on PATH ('' if not installed)")


class AllowedCommands(BaseModel):
    programs: list[AllowedProgram]
    python_modules: list[str]
    git_subcommands: list[str]
    workspace: str
    allowed_folders: list[str]
    timeout_s: float
    max_output_bytes: int
    rules: str


def list_allowed_commands(_: NoArgs, context: ToolContext) -> AllowedCommands:
    settings = settings_of(context)
    roots = context.confinement().roots
    return AllowedCommands(
        programs=[
            AllowedProgram(program=p, found_at=locate(p) or "") for p in settings.allowed_programs
        ],
        python_modules=settings.python_modules,
        git_subcommands=settings.git_subcommands,
        workspace=str(roots[0]),
        allowed_folders=[str(root) for root in roots[1:]],
        timeout_s=settings.timeout_s,
        max_output_bytes=settings.max_output_bytes,
        rules="One program per call, as a list of arguments, never through a shell (no pipes, "
        "redirections, ; or $VAR). Paths stay inside the workspace and allowed folders. python "
        "only as `python -m MODULE`; git only with the listed subcommands; find without -exec or "
        "-delete. Each command needs the engineer's confirmation.",
    )
