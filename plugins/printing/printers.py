"""The printers of one app: where serial requests go, PrusaLink clients, and the printers' loop.

A USB print lives only as long as the process holding the port, so one process per user hosts the
USB printers (host_server, host_ops): `workbench --headless serve`, or the desktop app when no
such host runs. In every process the `PrinterManager` sends serial requests to that host; in the
hosting process they go straight to its own printers. A one-shot process (a headless `tool` call)
never hosts: without a host, a USB print is refused rather than dying with the command.

Why a loop of its own: the printers (or the connection to their host) outlive any one tool call
and must not depend on the GUI thread. Tools and the panel hand coroutines to this loop and await
them without blocking; what the printers report is published on the app's event bus as
`PrinterEvent`s (the panel subscribes with subscribe_in_gui), whichever process hosts them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import stat
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

__all__ = [
    "NO_HOST",
    "PrinterEvent",
    "PrinterManager",
    "UnknownPrinter",
    "is_url",
    "manager_for",
]

from workbench.core.events import Event
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings, is_url
from workbench_plugins.printing.host.client import HostClient
from workbench_plugins.printing.host.ops import STOP_TIMEOUT_S, SerialPrinters
from workbench_plugins.printing.host.protocol import (
    HostAlreadyRunning,
    HostUnavailable,
    lock_path,
    socket_path,
)
from workbench_plugins.printing.host.server import HostServer
from workbench_plugins.printing.prusalink.access import prusalink_client
from workbench_plugins.printing.prusalink.client import PrusaLinkClient

if TYPE_CHECKING:
    from workbench.core.tool_host import ToolHost

T = TypeVar("T")
log = logging.getLogger(__name__)
FOLLOW_RETRY_S = 2.0  # a client app looks for a (new) host this often
NO_HOST = (
    "No printer host runs, and a USB print lives only as long as the process holding the port. "
    "Start one with `workbench --headless serve` (it runs until Ctrl+C), or open the desktop "
    "app, then try again."
)


class PrinterEvent(Event):
    printer: str
    kind: str  # "status" | "temperature" | "disconnect" | "rx" | "host" (the host came or went)
    snapshot: dict[str, Any]


class PrinterManager:
    def __init__(self, app: ToolHost) -> None:
        self.app = app
        self.window = 1
        self.printers: SerialPrinters | None = None  # the USB printers, when this process hosts
        self.server: HostServer | None = None
        self.may_host = False  # the desktop app hosts when no other process does
        self._client: HostClient | None = None
        self._follower: concurrent.futures.Future[None] | None = None
        self._follow_task: asyncio.Task[None] | None = None
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

    def close(self) -> None:
        """Stop following or hosting (running prints are stopped, heaters off) and the loop."""
        if not self._loop.is_running():
            return
        if self._follower is not None:
            with contextlib.suppress(Exception):  # it ends before the loop does, not mid-await
                self.submit(self._stop_following()).result(5)
        with contextlib.suppress(Exception):  # closing down: what it did was logged
            for line in self.submit(self.stop_hosting()).result(STOP_TIMEOUT_S + 10):
                log.warning("%s", line)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    # -- hosting ------------------------------------------------------------------------------
    @property
    def hosting(self) -> bool:
        return self.printers is not None

    @property
    def client(self) -> HostClient:
        """The way to the host's socket (made on first use: finding the runtime folder may fail
        with a message for people, which a tool reports)."""
        if self._client is None:
            self._client = HostClient(socket_path(self.app.paths, create=False))
        return self._client

    @property
    def socket(self) -> Path:
        return self.client.socket

    def host_here(self) -> None:
        """Own the USB printers in this process and serve them on the socket (from any thread
        but the loop's); HostAlreadyRunning names the process that already does."""
        self.submit(self._start_hosting()).result(10)

    async def _start_hosting(self) -> None:
        if self.printers is not None:
            return
        paths = self.app.paths
        server = HostServer(socket_path(paths), lock_path(paths), self._dispatch)
        server.claim()
        self.printers, self.server = SerialPrinters(self._heard, window=self.window), server
        try:
            await server.start()
        except BaseException:
            self.printers = self.server = None
            server.release()
            raise

    async def stop_hosting(self) -> list[str]:
        """Stop the printers this process hosts (running prints: stopped, heaters off) and the
        socket; returns what was done, for people."""
        printers, server = self.printers, self.server
        if printers is None or server is None:
            return []
        self.printers = None  # from here on, requests are refused: nothing new starts
        said = await printers.shutdown()
        await server.stop()
        self.server = None
        return said

    def busy(self) -> list[str]:
        """The USB prints this process hosts (what closing it would stop); it only reads, so
        any thread may ask without waiting for the printers' loop."""
        printers = self.printers
        return printers.busy() if printers else []

    async def _dispatch(self, op: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if self.printers is None:
            raise HostUnavailable("this process stopped hosting the printers")
        return await self.printers.call(op, arguments)

    def _heard(self, port: str, kind: str, snapshot: dict[str, Any]) -> None:
        self._publish(port, kind, snapshot)
        if self.server is not None:
            self.server.publish(
                {"event": "printer", "printer": port, "kind": kind, "snapshot": snapshot}
            )

    def _publish(self, port: str, kind: str, snapshot: dict[str, Any]) -> None:
        self.app.bus.publish(
            PrinterEvent(source=f"printer:{port}", printer=port, kind=kind, snapshot=snapshot)
        )

    # -- serial requests, wherever the host is ------------------------------------------------
    async def serial(self, op: str, **arguments: Any) -> dict[str, Any]:
        """On the printers' loop: a host protocol request (host_ops) to whoever hosts; this
        process first, then the host on the socket; the desktop app becomes the host when none
        answers. HostUnavailable(NO_HOST) when nobody hosts."""
        if self.printers is not None:
            return await self.printers.call(op, arguments)
        try:
            return await self.client.call(op, **arguments)
        except HostUnavailable:
            if not self.may_host:
                raise HostUnavailable(NO_HOST) from None
        with contextlib.suppress(HostAlreadyRunning):  # another process was quicker: use it
            await self._start_hosting()
        if self.printers is not None:
            return await self.printers.call(op, arguments)
        return await self.client.call(op, **arguments)

    async def host_info(self) -> dict[str, Any] | None:
        """Who hosts the USB printers: this process, another one (its hello), or None."""
        if self.server is not None:
            return {**self.server.hello(), "here": True}
        with contextlib.suppress(HostUnavailable):
            return {**await self.client.hello(), "here": False}
        return None

    def follow_host(self) -> None:
        """While another process hosts, republish its printer events on this app's bus (the
        panel listens); the desktop app takes over hosting when that host stops. Idempotent."""
        if self._follower is None or self._follower.done():
            self._follower = self.submit(self._follow())

    async def _stop_following(self) -> None:
        task = self._follow_task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _follow(self) -> None:
        self._follow_task = asyncio.current_task()
        while self.printers is None:
            try:
                hello = await self.client.follow(self._republish)
                self._publish(
                    "", "host", {"message": f"The printer host ({hello['host']}) stopped."}
                )
            except HostUnavailable:
                if self.may_host:
                    with contextlib.suppress(HostAlreadyRunning):
                        await self._start_hosting()
            except Exception:  # keep following: a broken host must not end the panel's updates
                log.exception("following the printer host failed")
            if self.printers is None:
                await asyncio.sleep(FOLLOW_RETRY_S)

    def _republish(self, event: dict[str, Any]) -> None:
        if event.get("event") == "printer" and isinstance(event.get("snapshot"), dict):
            self._publish(
                str(event.get("printer", "")), str(event.get("kind", "")), event["snapshot"]
            )

    # -- printers -----------------------------------------------------------------------------
    @property
    def settings(self) -> PrintingSettings:
        return self.app.settings.plugin("printing", PrintingSettings)

    def profiles(self) -> list[PrinterProfile]:
        return self.settings.profiles(self.app.settings.printers)

    def profile(self, printer: str) -> PrinterProfile:
        """The profile `printer` names (name or address); an unknown address gets defaults."""
        return self.settings.profile(printer, self.app.settings.printers)

    def named(self, printer: str) -> PrinterProfile:
        """The printer a tool names: a configured one (by name or address), a PrusaLink URL, or
        a serial port there is now (a full path to a character device). UnknownPrinter, naming
        the configured printers, for anything else: a name is never taken as a port path."""
        found = self.settings.configured(printer, self.app.settings.printers)
        if found is not None:
            return found
        wanted = printer.strip().rstrip("/")
        if is_url(wanted) or is_serial_port(wanted):
            return self.settings.default_profile(wanted)
        raise UnknownPrinter(unknown_printer_message(wanted, self.profiles()))

    def known(self) -> list[str]:
        return [profile.name for profile in self.profiles()]

    def prusalink(self, printer: str, **options: Any) -> PrusaLinkClient:
        return prusalink_client(self.profile(printer), **options)


class UnknownPrinter(ValueError):
    """A printer name that is neither configured nor an address; the message names the ones
    that are."""


def is_serial_port(address: str) -> bool:
    """A full path to a character device that exists now (/dev/ttyACM0, a pseudo-terminal)."""
    path = Path(address)
    try:
        return path.is_absolute() and stat.S_ISCHR(path.stat().st_mode)
    except OSError:
        return False


def unknown_printer_message(printer: str, profiles: list[PrinterProfile]) -> str:
    configured = ", ".join(
        profile.name if profile.name == profile.address else f"{profile.name} ({profile.address})"
        for profile in profiles
    )
    known = f"The configured printers: {configured}." if configured else "No printer is configured."
    return (
        f"There is no printer {printer!r}: it is not configured, nor a PrusaLink URL or a serial "
        f"port on this computer. {known} Add printers in the Printer panel's Printers... dialog "
        "([[plugins.printing.printers]]); a USB printer plugged in now may also be named by its "
        "port's full path (/dev/ttyACM0)."
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
