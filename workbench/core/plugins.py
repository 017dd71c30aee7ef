"""Plugins: what each capability contributes, and finding them through entry points.

A plugin is a `Plugin` object named by an entry point in the group `workbench.plugins`. Its heavy
parts are "module:attribute" references, imported only when needed: views only by the GUI, suites
only by the bench, services only by `workbench --headless serve` and the desktop app, so
`workbench --headless tool --list` stays quick and Qt-free. Specialists made at run time (one per
configured external MCP server) come from `Plugin.specialists`, awaited by the agent runtime
before each run through `contributed_specialists`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Protocol, TypeGuard, TypeVar

from pydantic import BaseModel

from workbench.core.events import Event

ENTRY_POINT_GROUP = "workbench.plugins"
SPECIALISTS_TIMEOUT_S = 60.0  # a plugin's `specialists` function, whatever its own timeouts
T = TypeVar("T")


@dataclass(frozen=True)
class Specialist:
    """An agent that knows one capability: its prompt and its short tool list."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...]
    # one-line requests this specialist is the one for: the supervisor's routing prior
    # (workbench.agents.routing) scores a request against them and the description
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class ViewSpec:
    """A Qt view; `factory` ("module:attr") is called with the AppContext and returns a QWidget.

    `shows` names the tools whose results the view shows: a chat card of such a call opens this
    view (an STL export the STL view, not the plugin's first view).

    `warm_up` ("module" or "module:function") is imported, and the function called without
    arguments, on a worker thread before the factory runs on the GUI thread: what the view would
    otherwise import or load inside its constructor (VTK, matplotlib), so opening it never
    freezes the window. A warm-up must not import Qt bindings (PySide6, pyvistaqt): those load
    on the GUI thread only, as does the factory's own module.

    `gui_imports` ("module" or "module:function", as `warm_up`) are such Qt-side modules
    (pyvistaqt, qtpy, pyqtgraph: `PLOT_GUI_IMPORTS`), imported after the warm-up on the GUI
    thread one per turn of its event loop, so that the window paints between them: qtpy's Qt
    modules take 50-75 ms each there, and in one turn they froze the window for 200 ms."""

    name: str
    title: str
    factory: str
    shows: tuple[str, ...] = ()
    warm_up: str = ""
    gui_imports: tuple[str, ...] = ()


# What a view drawn with pyqtgraph imports on the GUI thread, a step per turn: Qt's types made
# module by module (workbench.ui.qt_types), then pyqtgraph, which would otherwise make them all
# in the turn of its own import.
PLOT_GUI_IMPORTS = (
    "workbench.ui.qt_types:qtcore",
    "workbench.ui.qt_types:qtgui",
    "workbench.ui.qt_types:qtwidgets",
    "pyqtgraph",
)


class ViewRequested(Event):
    """Someone asks the window to show view `view` (a chat card's link to its result's view)."""

    view: str
    tool: str = ""  # the tool whose result is to be seen, when a tool call asked
    # where in the view, in the view's own words ("docs/x.pdf#page=7"): the window hands it to
    # the view widget's `show_target(target)` once the view is shown (created first if needed)
    target: str = ""


def view_showing(plugins: Iterable[Plugin], tool: str, owner: str = "") -> ViewSpec | None:
    """The view that shows `tool`'s results: the first that declares it in `shows`; for an
    `owner` plugin that declares `shows` on none of its views (written before `shows`), its
    first view; else None (better no link than a view that does not show the result)."""
    owned: tuple[ViewSpec, ...] = ()
    for plugin in plugins:
        for spec in plugin.views:
            if tool in spec.shows:
                return spec
        if plugin.name == owner:
            owned = plugin.views
    if owned and not any(spec.shows for spec in owned):
        return owned[0]
    return None


class Service(Protocol):
    """Something a plugin runs for as long as a process lasts (e.g. a printer host that owns the
    USB ports): `workbench --headless serve` runs the services until stopped, and the desktop app
    runs them while it is open. Its factory ("module:function") is called with the app context."""

    def start(self) -> None:
        """Start (quickly; work goes to the service's own threads or loop). Raise
        ServiceConflict when another process already provides it."""

    def describe(self) -> str:
        """One line for people: what it does and where (a socket path, a process id)."""

    def busy(self) -> list[str]:
        """What stopping now would interrupt, one line each (nothing: an empty list)."""

    def stop(self) -> list[str]:
        """Stop, leaving what it drives safe; returns what stopping did, one line each."""


class ServiceConflict(RuntimeError):
    """Another process already provides this service; the message says which and what to do."""


def is_service(item: object) -> TypeGuard[Service]:
    """What a plugin's services factory must return a list of."""
    return all(
        callable(getattr(item, name, None)) for name in ("start", "describe", "busy", "stop")
    )


@dataclass(frozen=True)
class PluginCommand:
    """A headless command a plugin adds: `workbench --headless <plugin> <name> ...`.

    `add_arguments` declares its arguments on its own subparser; `run` gets the app context
    (an AppContext: not named here, the context module imports this one) and the parsed
    arguments, and returns the exit code."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[Any, argparse.Namespace], int]


def is_plugin_command(item: object) -> TypeGuard[PluginCommand]:
    """What a plugin's commands factory must return a list of."""
    return isinstance(item, PluginCommand)


def plugin_commands(plugin: Plugin) -> list[PluginCommand]:
    """The plugin's headless commands, imported now (only when one of them is asked for)."""
    if plugin.commands is None:
        return []
    factory: Callable[[], list[object]] = load_reference(plugin.commands)
    return _all_of(is_plugin_command, list(factory()), plugin.commands)


@dataclass(frozen=True)
class Plugin:
    name: str
    title: str
    description: str = ""
    tools: str | None = None  # "module:function" returning list[Tool]
    specialist: Specialist | None = None
    views: tuple[ViewSpec, ...] = ()
    suites: str | None = None  # "module:function" returning list[Suite]
    settings: type[BaseModel] | None = None
    checks: str | None = None  # "module:function" returning list[doctor check functions]
    services: str | None = None  # "module:function(app context)" returning list[Service]
    executors: str | None = None  # "module:function" returning bench executors (`--executor`)
    commands: str | None = None  # "module:function" returning headless commands (PluginCommand)
    # "module:function(app context)" returning an awaitable list[Specialist] made at run time
    # (e.g. one per external MCP server in the settings); their tools the function registered in
    # the context's registry. Awaited before each agent run: see `contributed_specialists`.
    specialists: str | None = None


@dataclass(frozen=True)
class PluginFailure:
    name: str
    source: str
    stage: str  # "import", "tools", "suites", "views", ...
    error: str
    details: str = ""

    def explain(self) -> str:
        return (
            f"Plugin {self.name!r} ({self.source}) was skipped: its {self.stage} failed: "
            f"{self.error}. Reinstall or update it, or uninstall it to silence this."
        )


def load_reference(reference: str) -> Any:
    """Import "package.module:attribute" (Any: whatever the reference names; callers know)."""
    module_name, _, attribute = reference.partition(":")
    target: Any = importlib.import_module(module_name)
    for part in filter(None, attribute.split(".")):
        target = getattr(target, part)
    return target


def failure_from(name: str, source: str, stage: str, error: BaseException) -> PluginFailure:
    return PluginFailure(
        name=name,
        source=source,
        stage=stage,
        error=f"{type(error).__name__}: {error}",
        details="".join(traceback.format_exception(error)),
    )


@dataclass
class PluginSet:
    plugins: dict[str, Plugin] = field(default_factory=dict)
    failures: list[PluginFailure] = field(default_factory=list)

    def __iter__(self) -> Iterator[Plugin]:
        return iter(self.plugins.values())

    def fail(self, failure: PluginFailure) -> None:
        self.plugins.pop(failure.name, None)
        self.failures.append(failure)

    def sealed(self) -> PluginSet:
        """The same plugins without the specialists made from this machine's settings (external
        MCP servers): what a benchmark cell uses, so its score never depends on them."""
        return PluginSet(
            {name: replace(plugin, specialists=None) for name, plugin in self.plugins.items()},
            list(self.failures),
        )

    def contributions(
        self,
        attribute: str,
        stage: str,
        is_kind: Callable[[object], TypeGuard[T]],
        *arguments: object,
    ) -> list[tuple[Plugin, list[T]]]:
        """Call each plugin's `attribute` factory with `arguments`; it returns a list of what
        `is_kind` accepts (tools, suites, services). A plugin whose factory fails, or returns
        anything else, is dropped."""
        found: list[tuple[Plugin, list[T]]] = []
        for plugin in list(self.plugins.values()):
            reference = getattr(plugin, attribute)
            if reference is None:
                continue
            try:
                factory: Callable[..., list[object]] = load_reference(reference)
                found.append((plugin, _all_of(is_kind, list(factory(*arguments)), reference)))
            except Exception as error:
                self.fail(failure_from(plugin.name, reference, stage, error))
        return found


def _all_of(
    is_kind: Callable[[object], TypeGuard[T]], items: list[object], reference: str
) -> list[T]:
    """`items`, each checked (a plugin's factory is code this process did not write)."""
    typed = [item for item in items if is_kind(item)]
    if len(typed) != len(items):
        strays = sorted({type(item).__name__ for item in items if not is_kind(item)})
        raise TypeError(f"{reference} returned {', '.join(strays)} among what it contributes")
    return typed


def is_specialist(item: object) -> TypeGuard[Specialist]:
    """What a plugin's `specialists` function must return a list of."""
    return isinstance(item, Specialist)


async def contributed_specialists(
    plugins: PluginSet, context: Any, timeout_s: float = SPECIALISTS_TIMEOUT_S
) -> tuple[list[Specialist], list[str]]:
    """The specialists plugins make at run time, each plugin's `specialists` function awaited
    (concurrently) with the app `context`, and what went wrong, one sentence a problem.

    A function that fails, takes longer than `timeout_s` or returns anything else contributes
    nothing but a problem: an agent run never fails for it (the other specialists still work).
    A contributed specialist whose name is already taken is left out, with a problem."""
    hooked = [plugin for plugin in plugins if plugin.specialists is not None]
    outcomes = await asyncio.gather(
        *(_specialists_of(plugin, context, timeout_s) for plugin in hooked),
        return_exceptions=True,
    )
    taken = {plugin.specialist.name for plugin in plugins if plugin.specialist is not None}
    found: list[Specialist] = []
    problems: list[str] = []
    for plugin, outcome in zip(hooked, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, Exception):  # a cancelled run stays cancelled
                raise outcome
            problems.append(_specialists_problem(plugin, outcome, timeout_s))
            continue
        for specialist in outcome:
            if specialist.name in taken:
                problems.append(
                    f"Plugin {plugin.name!r} made a specialist named {specialist.name!r}, a name "
                    "another specialist already has; it was left out. Rename it in its settings."
                )
                continue
            taken.add(specialist.name)
            found.append(specialist)
    return found, problems


async def _specialists_of(plugin: Plugin, context: Any, timeout_s: float) -> list[Specialist]:
    reference = plugin.specialists or ""
    function: Callable[[Any], Any] = load_reference(reference)
    made = await asyncio.wait_for(function(context), timeout_s)
    return _all_of(is_specialist, list(made), reference)


def _specialists_problem(plugin: Plugin, error: Exception, timeout_s: float) -> str:
    what = (
        f"did not finish within {timeout_s:g} s"
        if isinstance(error, TimeoutError)
        else f"failed ({type(error).__name__}: {error})"
    )
    return (
        f"Plugin {plugin.name!r} could not make its specialists: {plugin.specialists} {what}. "
        "The other specialists work; check its settings or run `workbench --headless doctor`."
    )


def discover(group: str = ENTRY_POINT_GROUP) -> PluginSet:
    """Every installed plugin; one that fails to import is recorded in `failures` and skipped."""
    found = PluginSet()
    for point in sorted(entry_points(group=group), key=lambda p: p.name):
        plugin = _load(point, found)
        if plugin is None:
            continue
        if plugin.name in found.plugins:
            found.failures.append(
                PluginFailure(plugin.name, point.value, "import", "another plugin has this name")
            )
            continue
        found.plugins[plugin.name] = plugin
    return found


def _load(point: EntryPoint, found: PluginSet) -> Plugin | None:
    try:
        loaded = point.load()
        plugin = loaded() if callable(loaded) and not isinstance(loaded, Plugin) else loaded
    except Exception as error:
        found.failures.append(failure_from(point.name, point.value, "import", error))
        return None
    if not isinstance(plugin, Plugin):
        found.failures.append(
            PluginFailure(point.name, point.value, "import", f"{point.value} is not a Plugin")
        )
        return None
    return plugin
