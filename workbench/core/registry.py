"""The one tool registry. A GUI button, an agent's tool call and a benchmark step all come here.

Each call is recorded in the workspace store (caller, arguments, result or error, duration). Bad
arguments never reach the tool: they come back as a `ToolError` that names each field and the
constraint it broke; so does a call whose target is not configured (the tool's `precheck`), and
before anyone is asked to confirm it. The registry knows the app only as a `ToolHost` (the
services a tool may use), so the app can hold a registry without the two importing each other.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from typing import Any

from pydantic import BaseModel, ValidationError

from workbench.core.events import ToolCalled
from workbench.core.files import ConfirmationNeeded, FileAccess
from workbench.core.tool_errors import ToolError, ToolFailure, problems_from
from workbench.core.tool_host import ToolHost
from workbench.core.tools import FileSurvey, Tool, ToolContext, ToolOutcome

log = logging.getLogger(__name__)


class ToolRegistry:
    def __init__(self, app: ToolHost) -> None:
        self._app = app
        # replaced, never mutated: tools made at run time (an external MCP server's) come and go
        # while another thread may be listing them
        self._tools: dict[str, Tool] = {}
        self._owners: dict[str, str] = {}

    def register(self, tool: Tool, owner: str = "", *, replace: bool = False) -> None:
        """Add `tool`; with `replace`, a tool of that name from the same owner is replaced (a
        refreshed MCP server's), one from another owner never is."""
        if tool.name in self._tools and not (replace and self._owners[tool.name] == owner):
            raise ValueError(
                f"Tool {tool.name!r} from {owner or 'a plugin'} is already registered"
                f" by {self._owners[tool.name] or 'another plugin'}."
            )
        self._tools = {**self._tools, tool.name: tool}
        self._owners = {**self._owners, tool.name: owner}

    def unregister(self, name: str) -> Tool | None:
        """Remove tool `name` (a server taken out of the settings); the removed tool or None."""
        removed = self._tools.get(name)
        self._tools = {key: tool for key, tool in self._tools.items() if key != name}
        self._owners = {key: owner for key, owner in self._owners.items() if key != name}
        return removed

    def owner(self, name: str) -> str:
        """The plugin that contributed a tool ("" if unknown), e.g. to open its view."""
        return self._owners.get(name, "")

    def owned_by(self, owner: str) -> list[str]:
        """The names of the tools `owner` registered, sorted."""
        return sorted(name for name, by in self._owners.items() if by == owner)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def copy_into(self, other: ToolRegistry) -> None:
        """Register every tool here, with its owner, in `other` (a context on another
        workspace runs the same tools against its own store)."""
        tools, owners = self._tools, self._owners  # one consistent snapshot
        for name, tool in tools.items():
            other.register(tool, owner=owners[name])

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def describe(self) -> list[dict[str, Any]]:
        tools = self._tools
        return [tools[name].describe() for name in sorted(tools)]

    def confirmation_needed(self, name: str, arguments: object) -> ToolError | None:
        """The confirmation a call would be refused for (a physical action, files outside the
        workspace), found without running it: what the agent's interrupt and the GUI's dialogs
        show. None when nothing needs a person, or when the call is refused anyway."""
        tool = self._tools.get(name)
        if tool is None:
            return None
        try:
            parsed = tool.args.model_validate(arguments)
            preflight = ToolContext(self._app, "preflight", 0)
            if tool.precheck is not None:
                tool.precheck(parsed, preflight)  # a call that cannot run is not asked about
            outside = files_outside(tool, parsed, preflight)
            shows = tool.confirm_shows(parsed, preflight) if tool.confirm_shows else ""
        except (ValidationError, ToolFailure):
            return None  # the call itself says what is wrong; no one needs to be asked
        except Exception:
            log.exception("the files of %s could not be listed", name)
            return None
        return confirmation_error(tool, outside, shows) if tool.confirm or outside else None

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
        if tool.precheck is not None:
            try:
                tool.precheck(parsed, context)
            except ToolFailure as missing:  # e.g. an SSH host or a printer not configured
                raise _Refused(
                    ToolError(
                        tool=name,
                        kind="invalid_arguments",
                        message=f"{name} cannot run: {missing.message}",
                        hint=missing.hint or "Nothing was run or asked.",
                    )
                ) from None
        outside = files_outside(tool, parsed, context)
        if (tool.confirm or outside) and not confirmed:
            shows = tool.confirm_shows(parsed, context) if tool.confirm_shows else ""
            raise _Refused(confirmation_error(tool, outside, shows))
        context.confirmed = confirmed
        produced = await _produce(tool, parsed, context)
        if not isinstance(produced, tool.result):
            produced = tool.result.model_validate(produced)
        return produced.model_dump(mode="json")


async def _produce(tool: Tool, arguments: BaseModel, context: ToolContext) -> object:
    """What the tool returns: a coroutine function is awaited here, a plain one runs in a
    thread (so a slow one never blocks the loop)."""
    if inspect.iscoroutinefunction(tool.run):
        returned = tool.run(arguments, context)
        return await returned if inspect.isawaitable(returned) else returned
    return await asyncio.to_thread(tool.run, arguments, context)


class _Refused(Exception):
    def __init__(self, error: ToolError) -> None:
        super().__init__(error.message)
        self.error = error


def files_outside(tool: Tool, arguments: BaseModel, context: ToolContext) -> list[FileAccess]:
    """The files outside the workspace a call would use, by its tool's `files` declaration
    (run with a `FileSurvey` of the call's context, which notes them instead of refusing)."""
    if tool.files is None:
        return []
    survey = FileSurvey(context.app, context.caller, context.call_id, context.artifacts)
    tool.files(arguments, survey)
    return survey.outside


def confirmation_error(tool: Tool, outside: list[FileAccess], shows: str = "") -> ToolError:
    """The refusal that carries what a person must see before saying yes (`shows`: the tool's
    own account of this call, e.g. the exact command a shell tool would run)."""
    reasons = ["acts on the physical world"] if tool.confirm else []
    if outside:
        reasons.append("uses files outside the workspace and the allowed folders")
    lines = [f"{tool.name} {' and '.join(reasons)} and needs a person to confirm it."]
    lines += [f"  {line}" for line in shows.splitlines()]
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
