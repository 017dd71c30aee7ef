"""What a plugin writes to contribute a tool: `Tool`, and the `ToolContext` a running tool gets.

A tool has a name, a description, a pydantic argument model, a result model and a side-effect
class. The one registry that runs tools is `workbench.core.registry`; the errors a call can end
in are re-exported here from `workbench.core.tool_errors`, so a plugin imports all it needs from
this module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeGuard

from pydantic import BaseModel

from workbench.core.files import Confinement, ConfirmationNeeded, FileAccess, Mode
from workbench.core.store import Artifact
from workbench.core.tool_errors import (
    ErrorKind,
    FieldProblem,
    ToolError,
    ToolFailure,
    problems_from,
)
from workbench.core.tool_host import ToolHost

__all__ = [
    "ConfirmationNeeded",
    "ErrorKind",
    "FieldProblem",
    "FileArguments",
    "FileSurvey",
    "SideEffect",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolFailure",
    "ToolFunction",
    "ToolHost",
    "ToolOutcome",
    "is_tool",
    "problems_from",
]


class SideEffect(StrEnum):
    READ = "read"
    COMPUTE = "compute"
    WRITE = "write"
    PHYSICAL = "physical"


class ToolOutcome(BaseModel):
    tool: str
    call_id: int
    ok: bool
    duration_s: float
    result: dict[str, Any] | None = None
    error: ToolError | None = None


# The first argument is the tool's own argument model (Any: each tool names its own subclass).
ToolFunction = Callable[[Any, "ToolContext"], BaseModel | Awaitable[BaseModel]]
# Resolves every file a call would read or write through `ToolContext.file`, touching nothing
# else: the registry runs it before the tool, so one confirmation names every path outside.
FileArguments = Callable[[Any, "ToolContext"], object]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[BaseModel]
    result: type[BaseModel]
    run: ToolFunction
    side_effect: SideEffect = SideEffect.READ
    needs_confirmation: bool | None = None  # None: only physical tools ask
    files: FileArguments | None = None  # a tool with file arguments declares them here
    # what a person must read before saying yes (the shell: the exact command and its folder);
    # shown in every confirmation of this tool, under its first line
    confirm_shows: Callable[[Any, ToolContext], str] | None = None
    # whether the call could run at all (its SSH host, its printer configured), checked before a
    # person is asked to confirm it: raises ToolFailure saying what is missing, touches nothing
    precheck: Callable[[Any, ToolContext], None] | None = None

    @property
    def confirm(self) -> bool:
        if self.needs_confirmation is None:
            return self.side_effect is SideEffect.PHYSICAL
        return self.needs_confirmation

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "side_effect": self.side_effect.value,
            "needs_confirmation": self.confirm,
            "arguments": self.args.model_json_schema(),
            "result": self.result.model_json_schema(),
        }


def is_tool(item: object) -> TypeGuard[Tool]:
    """What a plugin's tools factory must return a list of."""
    return isinstance(item, Tool)


@dataclass
class ToolContext:
    """What a running tool may use. Artifacts it adds are dropped again if the call fails."""

    app: ToolHost
    caller: str
    call_id: int
    artifacts: list[Artifact] = field(default_factory=list)
    # a person allowed this call, files outside the workspace included (the question listed
    # those the tool's `files` declares; a tool must declare all it uses)
    confirmed: bool = False

    def confinement(self) -> Confinement:
        return Confinement.of(self.app.store.folder, self.app.settings.allowed_folders)

    def file(self, requested: str | Path, *, mode: Mode, base: Path | None = None) -> Path:
        """The path to use for a file argument (DESIGN rule: inside the workspace or an allowed
        folder, else only with a person's confirmation; never out through a link).

        Relative paths resolve against `base` (default: the workspace). Call it for every file
        argument before anything with a side effect, so a refusal leaves nothing behind."""
        access = self._access(requested, mode, base)
        if access.outside and not self.confirmed:
            raise ConfirmationNeeded([access])
        return access.path

    def _access(self, requested: str | Path, mode: Mode, base: Path | None) -> FileAccess:
        return self.confinement().check(requested, base=base or self.app.store.folder, mode=mode)

    def add_artifact(
        self,
        path: Path,
        *,
        name: str | None = None,
        kind: str = "file",
        meta: dict[str, Any] | None = None,
    ) -> Artifact:
        artifact = self.app.store.add_artifact(
            path, name=name, kind=kind, meta=meta, tool_call_id=self.call_id
        )
        self.artifacts.append(artifact)
        return artifact


@dataclass
class FileSurvey(ToolContext):
    """The context a tool's `files` declaration runs with, before the tool: `file` notes each
    path outside the workspace in `outside` instead of refusing it, so that one confirmation
    can name them all."""

    outside: list[FileAccess] = field(default_factory=list)

    def file(self, requested: str | Path, *, mode: Mode, base: Path | None = None) -> Path:
        access = self._access(requested, mode, base)
        if access.outside:
            self.outside.append(access)
        return access.path
