"""The one tool registry. A GUI button, an agent's tool call and a benchmark step all come here.

Each call is recorded in the workspace store (caller, arguments, result or error, duration). Bad
arguments never reach the tool: they come back as a `ToolError` that names each field and the
constraint it broke, in words fit for a person and for a model.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationError

from workbench.core.events import ToolCalled

if TYPE_CHECKING:
    from workbench.core.context import AppContext
    from workbench.core.files import Confinement, FileAccess, Mode
    from workbench.core.store import Artifact

log = logging.getLogger(__name__)


class SideEffect(StrEnum):
    READ = "read"
    COMPUTE = "compute"
    WRITE = "write"
    PHYSICAL = "physical"


class ToolFailure(Exception):
    """Raised by a tool for a failure the user or agent can act on (bad file, unreachable host)."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class FieldProblem(BaseModel):
    field: str
    constraint: str
    message: str
    input: Any = None


ErrorKind = Literal[
    "unknown_tool", "invalid_arguments", "confirmation_required", "failed", "internal"
]


class ToolError(BaseModel):
    tool: str
    kind: ErrorKind
    message: str
    hint: str = ""
    problems: list[FieldProblem] = []
    paths: list[str] = []  # confirmation_required: the files outside the workspace, resolved

    def explain(self) -> str:
        """One paragraph for a chat bubble or a model's next turn."""
        lines = [self.message]
        lines += [f"- {p.field}: {p.message}" for p in self.problems]
        if self.hint:
            lines.append(self.hint)
        return "\n".join(lines)


class ToolOutcome(BaseModel):
    tool: str
    call_id: int
    ok: bool
    duration_s: float
    result: dict[str, Any] | None = None
    error: ToolError | None = None


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


@dataclass
class ToolContext:
    """What a running tool may use. Artifacts it adds are dropped again if the call fails."""

    app: AppContext
    caller: str
    call_id: int
    artifacts: list[Artifact] = field(default_factory=list)
    # a person allowed this call, files outside the workspace included (the question listed
    # those the tool's `files` declares; a tool must declare all it uses)
    confirmed: bool = False
    # set while the registry asks a tool's `files` which paths it uses: outside ones go here
    outside: list[FileAccess] | None = None

    def confinement(self) -> Confinement:
        from workbench.core.files import Confinement  # files imports ToolFailure from here

        return Confinement.of(self.app.store.folder, self.app.settings.allowed_folders)

    def file(self, requested: str | Path, *, mode: Mode, base: Path | None = None) -> Path:
        """The path to use for a file argument (DESIGN rule: inside the workspace or an allowed
        folder, else only with a person's confirmation; never out through a link).

        Relative paths resolve against `base` (default: the workspace). Call it for every file
        argument before anything with a side effect, so a refusal leaves nothing behind."""
        access = self.confinement().check(requested, base=base or self.app.store.folder, mode=mode)
        if access.outside and not self.confirmed:
            if self.outside is None:
                raise ConfirmationNeeded([access])
            self.outside.append(access)
        return access.path

    def add_artifact(
        self, path: Path, *, name: str | None = None, kind: str = "file", meta: dict | None = None
    ) -> Artifact:
        artifact = self.app.store.add_artifact(
            path, name=name, kind=kind, meta=meta, tool_call_id=self.call_id
        )
        self.artifacts.append(artifact)
        return artifact


def problems_from(error: ValidationError) -> list[FieldProblem]:
    return [
        FieldProblem(
            field=".".join(str(part) for part in item["loc"]) or "(arguments)",
            constraint=item["type"],
            message=item["msg"],
            input=item.get("input") if not isinstance(item.get("input"), dict) else None,
        )
        for item in error.errors(include_url=False)
    ]


class ToolRegistry:
    def __init__(self, app: AppContext) -> None:
        self._app = app
        self._tools: dict[str, Tool] = {}
        self._owners: dict[str, str] = {}

    def register(self, tool: Tool, owner: str = "") -> None:
        if tool.name in self._tools:
            raise ValueError(
                f"Tool {tool.name!r} from {owner or 'a plugin'} is already registered."
            )
        self._tools[tool.name] = tool
        self._owners[tool.name] = owner

    def owner(self, name: str) -> str:
        """The plugin that contributed a tool ("" if unknown), e.g. to open its view."""
        return self._owners.get(name, "")

    def names(self) -> list[str]:
        return sorted(self._tools)

    def copy_into(self, other: ToolRegistry) -> None:
        """Register every tool here, with its owner, in `other` (a context on another
        workspace runs the same tools against its own store)."""
        for name, tool in self._tools.items():
            other.register(tool, owner=self._owners[name])

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def describe(self) -> list[dict[str, Any]]:
        return [self._tools[name].describe() for name in self.names()]

    def confirmation_needed(self, name: str, arguments: Any) -> ToolError | None:
        """The confirmation a call would be refused for (a physical action, files outside the
        workspace), found without running it: what the agent's interrupt and the GUI's dialogs
        show. None when nothing needs a person, or when the call is refused anyway."""
        tool = self._tools.get(name)
        if tool is None:
            return None
        try:
            parsed = tool.args.model_validate(arguments)
            outside = files_outside(tool, parsed, ToolContext(self._app, "preflight", 0))
        except (ValidationError, ToolFailure):
            return None  # the call itself says what is wrong; no one needs to be asked
        except Exception:
            log.exception("the files of %s could not be listed", name)
            return None
        return confirmation_error(tool, outside) if tool.confirm or outside else None

    # -- calling --------------------------------------------------------------------------------
    def call(
        self, name: str, arguments: dict[str, Any] | None, *, caller: str, confirmed: bool = False
    ) -> ToolOutcome:
        """Run a tool to completion in this thread (async tools get their own loop)."""
        return asyncio.run(self.acall(name, arguments, caller=caller, confirmed=confirmed))

    async def acall(
        self, name: str, arguments: dict[str, Any] | None, *, caller: str, confirmed: bool = False
    ) -> ToolOutcome:
        """Run a tool from a running event loop; a synchronous tool runs in a thread."""
        arguments = {} if arguments is None else arguments
        store = self._app.store
        started = time.perf_counter()
        call_id = store.begin_tool_call(tool=name, caller=caller, arguments=arguments)
        context = ToolContext(self._app, caller, call_id)
        error: ToolError | None = None
        result: dict[str, Any] | None = None
        try:
            result = await self._run(name, arguments, context, confirmed)
        except _Refused as refusal:
            error = refusal.error
        except ConfirmationNeeded as needed:  # a path the tool's `files` did not declare
            error = confirmation_error(self._tools[name], needed.accesses)
        except ToolFailure as failure:
            error = ToolError(tool=name, kind="failed", message=failure.message, hint=failure.hint)
        except Exception as crash:
            log.exception("tool %s crashed", name)
            error = ToolError(
                tool=name,
                kind="internal",
                message=f"{name} stopped with an unexpected {type(crash).__name__}: {crash}",
                hint="This is a bug in the tool; the call is recorded in the workspace store.",
            )
        duration = time.perf_counter() - started
        if error is not None:
            store.discard_artifacts_of_call(call_id)
        store.finish_tool_call(
            call_id,
            ok=error is None,
            result=result,
            error=None if error is None else error.model_dump(),
            duration_s=duration,
        )
        self._app.bus.publish(
            ToolCalled(
                tool=name, caller=caller, ok=error is None, duration_s=duration, call_id=call_id
            )
        )
        return ToolOutcome(
            tool=name,
            call_id=call_id,
            ok=error is None,
            duration_s=duration,
            result=result,
            error=error,
        )

    async def _run(
        self, name: str, arguments: dict[str, Any], context: ToolContext, confirmed: bool
    ) -> dict[str, Any]:
        tool = self._tools.get(name)
        if tool is None:
            raise _Refused(
                ToolError(
                    tool=name,
                    kind="unknown_tool",
                    message=f"There is no tool named {name!r}.",
                    hint="Known tools: " + ", ".join(self.names()),
                )
            )
        try:
            parsed = tool.args.model_validate(arguments)
        except ValidationError as invalid:
            problems = problems_from(invalid)
            raise _Refused(
                ToolError(
                    tool=name,
                    kind="invalid_arguments",
                    message=f"{name} got invalid arguments ({len(problems)} problem(s)).",
                    hint="Fix the fields listed and call again; nothing was run.",
                    problems=problems,
                )
            ) from None
        outside = files_outside(tool, parsed, context)
        if (tool.confirm or outside) and not confirmed:
            raise _Refused(confirmation_error(tool, outside))
        context.confirmed = confirmed
        if inspect.iscoroutinefunction(tool.run):
            produced = await tool.run(parsed, context)  # type: ignore[misc]
        else:
            produced = await asyncio.to_thread(tool.run, parsed, context)
        if not isinstance(produced, tool.result):
            produced = tool.result.model_validate(produced)
        return produced.model_dump(mode="json")  # type: ignore[union-attr]


class _Refused(Exception):
    def __init__(self, error: ToolError) -> None:
        super().__init__(error.message)
        self.error = error


class ConfirmationNeeded(Exception):
    """A tool met a file outside the workspace that no person has confirmed."""

    def __init__(self, accesses: list[FileAccess]) -> None:
        super().__init__(", ".join(access.describe() for access in accesses))
        self.accesses = accesses


def files_outside(tool: Tool, arguments: BaseModel, context: ToolContext) -> list[FileAccess]:
    """The files outside the workspace a call would use, by its tool's `files` declaration."""
    if tool.files is None:
        return []
    context.outside = []
    try:
        tool.files(arguments, context)
        return context.outside
    finally:
        context.outside = None


def confirmation_error(tool: Tool, outside: list[FileAccess]) -> ToolError:
    """The refusal that carries what a person must see before saying yes."""
    reasons = ["acts on the physical world"] if tool.confirm else []
    if outside:
        reasons.append("uses files outside the workspace and the allowed folders")
    lines = [f"{tool.name} {' and '.join(reasons)} and needs a person to confirm it."]
    lines += [f"  {access.describe()}" for access in outside]
    hint = "Ask the user, then call again with confirmation."
    if outside:
        hint += " (Or add the folder to allowed_folders in the settings.)"
    return ToolError(
        tool=tool.name,
        kind="confirmation_required",
        message="\n".join(lines),
        hint=hint,
        paths=[str(access.path) for access in outside],
    )
