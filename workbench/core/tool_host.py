"""What a running tool may use of the app it runs in: `ToolHost`.

The registry and `ToolContext` depend on this protocol, not on `AppContext`, so the app (which
holds the registry) and the registry do not import each other. `AppContext` satisfies it; so does
any object with these members (a context on another workspace, a test double).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from workbench.core.events import EventBus
from workbench.core.jobs import JobRunner
from workbench.core.ledger import Ledger
from workbench.core.paths import AppPaths
from workbench.core.settings import Settings
from workbench.core.store import Store


class ToolHost(Protocol):
    """The services of one app on one workspace: read-only to a tool."""

    @property
    def paths(self) -> AppPaths: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def bus(self) -> EventBus: ...

    @property
    def store(self) -> Store: ...

    @property
    def ledger(self) -> Ledger: ...

    @property
    def jobs(self) -> JobRunner: ...

    def on_close(self, closer: Callable[[], None]) -> None:
        """Run `closer` when the app closes (a plugin's own resources end with the app)."""
