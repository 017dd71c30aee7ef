"""Plugins: what each capability contributes, and finding them through entry points.

A plugin is a `Plugin` object named by an entry point in the group `workbench.plugins`. Its heavy
parts are "module:attribute" references, imported only when needed: views only by the GUI, suites
only by the bench, so `workbench --headless tool --list` stays quick and Qt-free.
"""

from __future__ import annotations

import importlib
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeGuard, TypeVar

from pydantic import BaseModel

ENTRY_POINT_GROUP = "workbench.plugins"
T = TypeVar("T")


@dataclass(frozen=True)
class Specialist:
    """An agent that knows one capability: its prompt and its short tool list."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...]


@dataclass(frozen=True)
class ViewSpec:
    """A Qt view; `factory` ("module:attr") is called with the AppContext and returns a QWidget."""

    name: str
    title: str
    factory: str


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

    def contributions(
        self, attribute: str, stage: str, is_kind: Callable[[object], TypeGuard[T]]
    ) -> list[tuple[Plugin, list[T]]]:
        """Call each plugin's `attribute` factory, which returns a list of what `is_kind` accepts
        (tools, suites); a plugin whose factory fails, or returns anything else, is dropped."""
        found: list[tuple[Plugin, list[T]]] = []
        for plugin in list(self.plugins.values()):
            reference = getattr(plugin, attribute)
            if reference is None:
                continue
            try:
                factory: Callable[[], list[object]] = load_reference(reference)
                found.append((plugin, _all_of(is_kind, list(factory()), reference)))
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
