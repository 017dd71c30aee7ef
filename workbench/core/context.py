"""The composition root: one object holding what a session of Workbench works with.

The GUI, the headless commands and the bench each open one `AppContext`; tools receive it through
their `ToolContext`, which knows it only as a `ToolHost` (the services a tool may use).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from workbench.core.events import EventBus, LedgerChanged, Notice
from workbench.core.jobs import JobRunner
from workbench.core.ledger import Ledger
from workbench.core.paths import AppPaths, app_paths
from workbench.core.plugins import PluginFailure, PluginSet, Service, discover, is_service
from workbench.core.registry import ToolRegistry
from workbench.core.settings import Settings, load_settings, save_settings
from workbench.core.store import Store
from workbench.core.tools import is_tool

log = logging.getLogger(__name__)


@dataclass
class AppContext:
    paths: AppPaths
    settings: Settings
    bus: EventBus
    store: Store
    ledger: Ledger
    jobs: JobRunner
    plugins: PluginSet
    registry: ToolRegistry = field(init=False)
    notices: list[str] = field(default_factory=list)
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)
    _shares_jobs: bool = field(default=False, repr=False)  # the job runner is the parent's

    def __post_init__(self) -> None:
        self.registry = ToolRegistry(self)

    @classmethod
    def open(cls, paths: AppPaths | None = None, workspace: Path | None = None) -> AppContext:
        paths = (paths or app_paths()).ensure()
        settings, settings_problem = load_settings(paths.settings_file)
        folder = workspace or Path(settings.workspace or paths.default_workspace)
        bus = EventBus()
        store = Store(folder)
        context = cls(
            paths, settings, bus, store, _ledger_on(store, bus), JobRunner(bus), discover()
        )
        if settings_problem:
            context.notices.append(settings_problem)
        context._register_tools()
        context.notices += [failure.explain() for failure in context.plugins.failures]
        for text in context.notices:
            log.warning(text)
        return context

    def for_workspace(self, folder: Path) -> AppContext:
        """A context on another workspace (its own store, artifacts, ledger and agent
        checkpoints) sharing this one's settings, plugins, bus, tools and job runner.

        How each bench cell gets a workspace of its own: opening a whole context per cell would
        start a new job runner, and re-spawning warm workers (Python plus EngiBench imports)
        costs seconds a cell. Closing it closes its own store and closers, never the shared
        job runner."""
        store = Store(folder)
        ledger = _ledger_on(store, self.bus)
        child = type(self)(
            self.paths, self.settings, self.bus, store, ledger, self.jobs, self.plugins
        )
        child._shares_jobs = True
        self.registry.copy_into(child.registry)  # the same tools, bound to the child's context
        return child

    def _register_tools(self) -> None:
        for plugin, tools in self.plugins.contributions("tools", "tools", is_tool):
            taken = [tool.name for tool in tools if self.registry.get(tool.name)]
            if taken:  # a clash would make calls ambiguous: the later plugin is skipped whole
                self.plugins.fail(
                    PluginFailure(
                        plugin.name,
                        plugin.tools or "",
                        "tools",
                        f"tool name(s) already registered by another plugin: {', '.join(taken)}",
                    )
                )
                continue
            for tool in tools:
                self.registry.register(tool, owner=plugin.name)

    def services(self) -> list[Service]:
        """The services the plugins contribute, made for this app (not started: `serve` and the
        desktop app start them). A plugin whose factory fails is skipped with a notice."""
        failed = len(self.plugins.failures)
        found: list[Service] = []
        for _plugin, services in self.plugins.contributions(
            "services", "services", is_service, self
        ):
            found += services
        for failure in self.plugins.failures[failed:]:
            self.notices.append(failure.explain())
            log.warning(failure.explain())
        return found

    def announce_notices(self) -> None:
        """Publish start-up notices once a subscriber (status bar, console) is listening."""
        for text in self.notices:
            self.bus.publish(Notice(level="warning", text=text))

    def save_settings(self) -> None:
        save_settings(self.settings, self.paths.settings_file)

    def on_close(self, closer: Callable[[], None]) -> None:
        """Run `closer` when the app closes (latest first, before jobs and store): how a plugin's
        own resources, such as the printers' I/O loop, end with the app."""
        self._closers.append(closer)

    def close(self) -> None:
        while self._closers:
            closer = self._closers.pop()
            try:
                closer()
            except Exception:  # one failing closer must not keep the rest (or the store) open
                log.exception("closing %r failed", closer)
        if not self._shares_jobs:
            self.jobs.close()
        self.store.close()


def _ledger_on(store: Store, bus: EventBus) -> Ledger:
    """The ledger of a workspace, announcing its changes on the bus (views refresh on them)."""
    return Ledger(
        store,
        on_change=lambda change, payload: bus.publish(
            LedgerChanged(change=change, payload=payload)
        ),
    )
