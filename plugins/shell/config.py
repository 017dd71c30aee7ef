"""The shell plugin's settings ([plugins.shell]): which programs the CLI specialist may run.

The default allowlist holds programs that only read, each useful to an engineer looking at a
workspace: listing and reading files (ls, cat, head, tail, wc, file, stat), searching (grep, find
without its actions), sizes and checksums (du, df, sha256sum), the history of a project (git with
read-only subcommands), and Python only as `python -m <module>` for a short list of modules (a
JSON checker and the problem libraries' command lines), run by the workbench's own interpreter
with PYTHONSAFEPATH, so a file in the working folder never shadows the module. Nothing that
deletes, moves, installs or talks to the network is allowed until the engineer adds it: `rm` is
not in the list, and even with it, recursive deletes of / or of anything outside the workspace
are never run.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

SECTION = "plugins.shell"
DEFAULT_PROGRAMS = (
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "file",
    "stat",
    "grep",
    "find",
    "du",
    "df",
    "sha256sum",
    "git",
    "python",
    "python3",
)
DEFAULT_PYTHON_MODULES = ("json.tool", "engibench", "engiopt")
DEFAULT_GIT_SUBCOMMANDS = ("status", "log", "diff", "show")


class ShellSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    allowed_programs: list[str] = Field(
        default_factory=lambda: list(DEFAULT_PROGRAMS),
        description="Programs the CLI specialist may run (bare names found on PATH)",
    )
    python_modules: list[str] = Field(
        default_factory=lambda: list(DEFAULT_PYTHON_MODULES),
        description="Modules (and their submodules) allowed after `python -m`",
    )
    git_subcommands: list[str] = Field(
        default_factory=lambda: list(DEFAULT_GIT_SUBCOMMANDS),
        description="git subcommands allowed (given right after `git`)",
    )
    timeout_s: float = Field(60.0, gt=0, le=3600, description="Stop a command after this long")
    max_output_bytes: int = Field(
        65536, ge=1024, le=16 * 1024 * 1024, description="Keep at most this much of each output"
    )

    @field_validator("allowed_programs")
    @classmethod
    def _bare_names(cls, programs: list[str]) -> list[str]:
        """A program is a name looked up on PATH: a path would bypass the name the person read."""
        for program in programs:
            if not program or "/" in program or program.strip() != program:
                raise ValueError(
                    f"{program!r} is not a bare program name (like 'ls'); "
                    "put the program's folder on PATH instead of naming a path"
                )
        return programs
