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


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[BaseModel]
    result: type[BaseModel]
    run: ToolFunction
    side_effect: SideEffect = SideEffect.READ
    needs_confirmation: bool | None = None  # None: only physical tools ask

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

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def describe(self) -> list[dict[str, Any]]:
        return [self._tools[name].describe() for name in self.names()]

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
        if tool.confirm and not confirmed:
            raise _Refused(
                ToolError(
                    tool=name,
                    kind="confirmation_required",
                    message=f"{name} acts on the physical world and needs a person to confirm it.",
                    hint="Ask the user, then call again with confirmation.",
                )
            )
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
