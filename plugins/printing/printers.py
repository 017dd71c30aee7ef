"""The printers of one app: serial hosts and PrusaLink clients on one background asyncio loop.

Why a loop of its own: a serial print streams for hours, longer than any one tool call (headless
`tool` calls each run on a short-lived loop) and independent of the GUI thread. Tools and the panel
hand coroutines to this loop and await them without blocking; what the printers report is
published on the app's event bus as `PrinterEvent`s (the panel subscribes with subscribe_in_gui).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

__all__ = ["PrinterEvent", "PrinterManager", "is_url", "manager_for"]

from workbench.core.events import Event
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings, is_url
from workbench_plugins.printing.print_job import HostSnapshot
from workbench_plugins.printing.prusalink import PrusaLinkClient
from workbench_plugins.printing.prusalink_access import prusalink_client
from workbench_plugins.printing.serial_host import SerialHost

if TYPE_CHECKING:
    from workbench.core.tool_host import ToolHost

T = TypeVar("T")


class PrinterEvent(Event):
    printer: str
    kind: str  # "status" | "temperature" | "disconnect" | "rx"
    snapshot: dict[str, Any]


class PrinterManager:
    def __init__(self, app: ToolHost) -> None:
        self.app = app
        self.hosts: dict[str, SerialHost] = {}
        self.window = 1
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="printing-io", daemon=True
        )
        self._thread.start()

    # -- the loop -----------------------------------------------------------------------------
    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Await `coroutine` on the printers' loop from any other running loop."""
        return await asyncio.wrap_future(self.submit(coroutine))

    def call_soon(self, function: Any, *args: Any) -> None:
        self._loop.call_soon_threadsafe(function, *args)

    def close(self) -> None:
        async def shut() -> None:
            for host in self.hosts.values():
                await host.disconnect()

        if self._loop.is_running():
            with contextlib.suppress(Exception):  # closing down: nothing left to tell
                self.submit(shut()).result(5)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)

    # -- printers -----------------------------------------------------------------------------
    @property
    def settings(self) -> PrintingSettings:
        return self.app.settings.plugin("printing", PrintingSettings)

    def profiles(self) -> list[PrinterProfile]:
        return self.settings.profiles(self.app.settings.printers)

    def profile(self, printer: str) -> PrinterProfile:
        """The profile `printer` names (name or address); an unknown address gets defaults."""
        return self.settings.profile(printer, self.app.settings.printers)

    def known(self) -> list[str]:
        names = [profile.name for profile in self.profiles()]
        names += [port for port in self.hosts if port not in names]
        return names

    async def serial(self, port: str, *, connect: bool = True) -> SerialHost:
        """On the printers' loop: the host of `port`, connected if asked."""
        host = self.hosts.get(port)
        if host is None:
            host = SerialHost(
                port,
                self.settings.serial_baudrate,
                window=self.window,
                listener=lambda kind, snap: self._publish(port, kind, snap),
            )
            self.hosts[port] = host
        if connect and not host.connected:
            await host.connect()
        return host

    def prusalink(self, printer: str) -> PrusaLinkClient:
        return prusalink_client(self.profile(printer))

    def _publish(self, port: str, kind: str, snapshot: HostSnapshot) -> None:
        if kind == "rx" and snapshot.message.startswith("ok") and "T:" not in snapshot.message:
            return  # one per line: too many for the bus; the terminal shows the rest
        self.app.bus.publish(
            PrinterEvent(
                source=f"printer:{port}", printer=port, kind=kind, snapshot=snapshot.to_dict()
            )
        )


_managers: dict[int, PrinterManager] = {}
_lock = threading.Lock()


def manager_for(app: ToolHost) -> PrinterManager:
    """The one manager of this app (created on first use, closed when the app closes)."""
    with _lock:
        manager = _managers.get(id(app))
        if manager is None or manager.app is not app:
            manager = PrinterManager(app)
            _managers[id(app)] = manager
            app.on_close(lambda: close_manager(app))
        return manager


def close_manager(app: ToolHost) -> None:
    with _lock:
        manager = _managers.pop(id(app), None)
    if manager is not None:
        manager.close()
