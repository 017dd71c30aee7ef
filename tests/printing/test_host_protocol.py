"""The printer host's socket protocol, in process: what a client that speaks it wrongly gets back,
how a client finds (or does not find) a host, the private runtime folder, and the event stream
that another app republishes on its own bus."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.rigs.marlin_emulator import running_emulator
from workbench.core.context import AppContext
from workbench_plugins.printing.host.client import HostClient
from workbench_plugins.printing.host.protocol import (
    PROTOCOL_VERSION,
    HostUnavailable,
    socket_path,
)
from workbench_plugins.printing.printers import PrinterEvent, manager_for
from workbench_plugins.printing.usb.serial_port import SerialHostError


@pytest.fixture
def hosting(context: AppContext) -> AppContext:
    manager_for(context).host_here()
    return context


def converse(socket: Path, lines: list[bytes]) -> list[dict[str, Any]]:
    """Send raw lines on one connection; the replies, one per line."""

    async def run() -> list[dict[str, Any]]:
        reader, writer = await asyncio.open_unix_connection(str(socket))
        replies = []
        for line in lines:
            writer.write(line)
            await writer.drain()
            replies.append(json.loads(await asyncio.wait_for(reader.readline(), 10)))
        writer.close()
        return replies

    return asyncio.run(run())


def test_bad_requests_get_words_and_the_connection_goes_on(hosting: AppContext) -> None:
    socket = manager_for(hosting).socket
    hello, broken, unknown, missing, status = converse(
        socket,
        [
            b'{"id": 1, "op": "hello", "protocol": %d}\n' % PROTOCOL_VERSION,
            b"not json\n",
            b'{"id": 3, "op": "fly"}\n',
            b'{"id": 4, "op": "status"}\n',
            b'{"id": 5, "op": "status", "printer": "/dev/ttyUSB9"}\n',
        ],
    )
    assert hello["ok"] and hello["result"]["pid"] == os.getpid()
    assert not broken["ok"] and broken["kind"] == "protocol" and "JSON" in broken["error"]
    assert unknown == {
        "id": 3,
        "ok": False,
        "error": "the printer host does not know 'fly'",
        "kind": "protocol",
        "offer": None,
    }
    assert not missing["ok"] and "'printer'" in missing["error"]
    assert status["ok"] and status["result"]["state"] == "not connected"


def test_another_protocol_version_is_told_to_restart(hosting: AppContext) -> None:
    [reply] = converse(manager_for(hosting).socket, [b'{"id": 1, "op": "hello", "protocol": 99}\n'])
    assert not reply["ok"] and "speaks protocol 1, the client 99" in reply["error"]


def test_no_host_is_unavailable_and_a_foreign_folder_is_refused(
    context: AppContext, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = HostClient(socket_path(context.paths, create=False))
    with pytest.raises(HostUnavailable):
        asyncio.run(client.hello())
    # short: a socket path fits 107 bytes (tmp_path is longer under xdist: .../popen-gw0/...)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("run")))
    shared = socket_path(context.paths).parent
    shared.chmod(0o755)  # as if someone else had made it readable for all
    with pytest.raises(SerialHostError, match="not a private folder"):
        asyncio.run(HostClient(shared / "printers.sock").hello())
    with pytest.raises(SerialHostError, match="not a private folder"):
        manager_for(context).host_here()


def test_a_socket_path_too_long_for_unix_sockets_is_named(
    context: AppContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = tmp_path / ("x" * 60) / ("y" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    with pytest.raises(SerialHostError, match="Unix sockets allow 107"):
        socket_path(context.paths)


@pytest.fixture
def second_app(hosting: AppContext) -> Iterator[AppContext]:
    """Another app on the same home (a second window, say): a client of the first."""
    other = AppContext.open()
    yield other
    other.close()


def test_a_client_app_republishes_the_hosts_events_on_its_own_bus(
    hosting: AppContext, second_app: AppContext, tmp_path: Path
) -> None:
    heard: list[PrinterEvent] = []
    heard_idle = threading.Event()  # the host's events come after the call returns: wait for it

    def listen(event: PrinterEvent) -> None:
        heard.append(event)
        if event.snapshot.get("state") == "idle":
            heard_idle.set()

    second_app.bus.subscribe(PrinterEvent, listen)
    client = manager_for(second_app)
    client.follow_host()
    with running_emulator(tmp_path / "executed.log") as printer:
        # (were the subscription late for the connect, the temperature reports still come)
        connected = second_app.registry.call(
            "connect_printer", {"printer": printer.port}, caller="cli", confirmed=True
        )
        assert connected.ok and connected.result["state"] == "idle", connected.error
        assert heard_idle.wait(10), [event.snapshot.get("state") for event in heard]
    assert not client.hosting
    assert {event.printer for event in heard} == {printer.port}
    assert "idle" in {event.snapshot.get("state") for event in heard}


def test_the_desktop_apps_service_defers_to_a_host_and_takes_over_when_it_stops(
    hosting: AppContext, second_app: AppContext
) -> None:
    """The desktop app starts the printer service; another process already hosts, so it says
    which and follows it; when that host stops, the app becomes the host itself."""
    from workbench.core.plugins import ServiceConflict
    from workbench_plugins.printing.services import PrinterHostService

    service = PrinterHostService(second_app)
    with pytest.raises(
        ServiceConflict, match=f"A printer host already runs .*process {os.getpid()}"
    ):
        service.start()
    manager = manager_for(second_app)
    assert not manager.hosting and manager.may_host
    assert service.describe() == "Printer host: another process hosts the USB printers."
    first = manager_for(hosting)
    first.submit(first.stop_hosting()).result(10)
    deadline = time.monotonic() + 20
    while not manager.hosting:
        assert time.monotonic() < deadline, "the app did not take over hosting"
        time.sleep(0.05)
    assert service.describe().startswith("Printer host: serving the USB printers on ")
    assert service.busy() == []
    assert service.stop() == ["Printer host stopped; no print was running."]
    assert not manager.hosting and not manager.socket.exists()
