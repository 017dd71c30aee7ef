"""The USB printers a host process owns, and what each request of the host protocol does to them.

`SerialPrinters` keeps one SerialHost per port. Its `call(op, arguments)` is the whole of the
host's work: the socket server hands requests to it, and so does the hosting process itself, so
a request means the same whether it came over the socket or from a tool in the same process.
Results are JSON-ready dicts; refusals are HostCallErrors with a message for people.
It runs on the printers' loop (printers.PrinterManager) only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from workbench_plugins.printing.host.protocol import OPERATIONS, HostCallError
from workbench_plugins.printing.outcomes import ActionOutcome
from workbench_plugins.printing.usb.print_job import HostSnapshot, HostState, PrintJob
from workbench_plugins.printing.usb.serial_host import SerialHost, load_print
from workbench_plugins.printing.usb.serial_port import SerialHostError

log = logging.getLogger(__name__)
EventSink = Callable[[str, str, dict[str, Any]], None]  # (port, kind, snapshot as a dict)
STOP_TIMEOUT_S = 20.0  # shutting down: how long the printer may take to confirm heaters off
RUNNING = (HostState.PRINTING, HostState.PAUSED)
# a print is confirmed by the printer's ok to its first line: waited for this long (a wedged
# printer answers nothing; the watchdog gives up on it after about a minute)
ACK_WAIT_S = 10.0
ACK_POLL_S = 0.05


def not_connected(port: str) -> dict[str, Any]:
    """The status of a port no host holds."""
    return {
        "port": port,
        "state": "not connected",
        "temperatures": {},
        "file": "",
        "line": 0,
        "total": 0,
        "progress": None,
        "time_left_s": None,
        "message": "",
        "layer": None,
        "resume": None,
    }


def _text(arguments: dict[str, Any], name: str) -> str:
    value = arguments.get(name)
    if not isinstance(value, str) or not value:
        raise HostCallError(f"the request needs {name!r} (a non-empty string)", kind="protocol")
    return value


def _number(arguments: dict[str, Any], name: str, default: int | None = None) -> int:
    value = arguments.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise HostCallError(f"the request needs {name!r} (a whole number)", kind="protocol")
    return value


async def _acknowledged(host: SerialHost, job: PrintJob) -> None:
    """Until the printer acknowledged the job's first line, the print stopped, or ACK_WAIT_S."""
    loop = asyncio.get_running_loop()
    until = loop.time() + ACK_WAIT_S
    while job.confirmed == 0 and host.job is job and host.state is HostState.PRINTING:
        if loop.time() >= until:
            return
        await asyncio.sleep(ACK_POLL_S)


def outcome_dict(outcome: ActionOutcome) -> dict[str, Any]:
    return {"state": outcome.state, "message": outcome.message, "confirmed": outcome.confirmed}


class SerialPrinters:
    def __init__(self, on_event: EventSink, *, window: int = 1) -> None:
        self.on_event = on_event
        self.window = window
        self.hosts: dict[str, SerialHost] = {}

    async def call(self, op: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if op not in OPERATIONS:
            raise HostCallError(f"the printer host does not know {op!r}", kind="protocol")
        handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] = getattr(self, f"_{op}")
        try:
            return await handler(arguments)
        except HostCallError:
            raise
        except SerialHostError as error:
            plan = getattr(error, "plan", None)  # a refused resume offers resume-from-layer
            if plan is not None:
                reason = str(getattr(error, "reason", "") or error)
                offer = plan.offer(reason)
                raise HostCallError(
                    f"Resume refused: {reason}.", kind="resume_refused", offer=offer
                ) from None
            raise HostCallError(str(error)) from None

    # -- what is there ------------------------------------------------------------------------
    async def _list(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"printers": [host.snapshot().to_dict() for host in self.hosts.values()]}

    async def _status(self, arguments: dict[str, Any]) -> dict[str, Any]:
        host = self.hosts.get(_text(arguments, "printer"))
        return host.snapshot().to_dict() if host else not_connected(_text(arguments, "printer"))

    def busy(self) -> list[str]:
        """The prints that stopping the host would end, one line each."""
        return [
            f"the USB print of {snap.file} on {port} (line {snap.line} of {snap.total}, "
            f"{snap.state}): it would be stopped, heaters off"
            for port, host in list(self.hosts.items())
            if host.active_job is not None
            for snap in [host.snapshot()]
        ]

    # -- the link -----------------------------------------------------------------------------
    def _host(self, port: str, baudrate: int) -> SerialHost:
        if not Path(port).is_absolute():  # else it would be a file in the host's own folder
            raise HostCallError(
                f"{port!r} is not a serial port: a port is a full path such as /dev/ttyACM0. "
                "Nothing was opened."
            )
        host = self.hosts.get(port)
        if host is None:
            host = SerialHost(
                port,
                baudrate,
                window=self.window,
                listener=lambda kind, snap: self._heard(port, kind, snap),
            )
            self.hosts[port] = host
        return host

    def _connected(self, port: str) -> SerialHost:
        host = self.hosts.get(port)
        if host is None or not host.connected:
            raise HostCallError(
                f"The printer {port} is not connected. Connect it first (the connect_printer "
                "tool, or Connect in the Printer panel)."
            )
        return host

    async def _connect(self, arguments: dict[str, Any]) -> dict[str, Any]:
        host = self._host(_text(arguments, "printer"), _number(arguments, "baudrate", 115200))
        await self._open(host)
        return host.snapshot().to_dict()

    async def _open(self, host: SerialHost) -> None:
        """Connect `host`; a port that cannot be opened is forgotten unless it holds a print (an
        unplugged printer's held print waits for the replug), so it leaves no phantom printer."""
        if host.connected:
            return
        try:
            await host.connect()
        except SerialHostError:
            if host.active_job is None and self.hosts.get(host.port) is host:
                del self.hosts[host.port]
            raise

    async def _disconnect(self, arguments: dict[str, Any]) -> dict[str, Any]:
        port = _text(arguments, "printer")
        host = self.hosts.get(port)
        if host is None:
            return not_connected(port)
        if host.active_job is not None and host.state in RUNNING:
            raise HostCallError(
                f"A print runs on {port} ({host.snapshot().file}, {host.state}); disconnecting "
                "would leave it hot mid-print. Cancel it first (cancel_print), then disconnect."
            )
        await host.disconnect()
        del self.hosts[port]
        return not_connected(port)

    # -- printing -----------------------------------------------------------------------------
    async def _print(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Read and check the file, then open the port (an MK3 resets), then stream; the answer
        comes once the printer acknowledged the file's first line, or after ACK_WAIT_S."""
        path = Path(_text(arguments, "path"))
        port, baudrate = _text(arguments, "printer"), _number(arguments, "baudrate", 115200)
        if not path.is_absolute() or not path.is_file():
            raise HostCallError(f"The G-code {path} is not a file the host can read.")
        known = self.hosts.get(port)
        if known is not None and known.active_job is not None:
            raise HostCallError("A print is already running or held; resume or abort it first.")
        job = await load_print(path)  # a bad file is refused before the port is touched
        host = self._host(port, baudrate)
        await self._open(host)
        await host.start_print(path, job)
        await _acknowledged(host, job)
        return host.snapshot().to_dict()

    async def _action(self, port: str, run: Awaitable[ActionOutcome]) -> dict[str, Any]:
        outcome = await run
        return {"outcome": outcome_dict(outcome), "snapshot": self.hosts[port].snapshot().to_dict()}

    async def _pause(self, arguments: dict[str, Any]) -> dict[str, Any]:
        port = _text(arguments, "printer")
        return await self._action(port, self._connected(port).pause())

    async def _resume(self, arguments: dict[str, Any]) -> dict[str, Any]:
        port = _text(arguments, "printer")
        return await self._action(port, self._connected(port).resume())

    async def _cancel(self, arguments: dict[str, Any]) -> dict[str, Any]:
        port = _text(arguments, "printer")
        host = self.hosts.get(port)
        if host is None:
            return {
                "outcome": {
                    "state": "not connected",
                    "message": "nothing to cancel",
                    "confirmed": False,
                },
                "snapshot": not_connected(port),
            }
        return await self._action(port, host.abort())

    async def _resume_plan(self, arguments: dict[str, Any]) -> dict[str, Any]:
        layer = None if arguments.get("layer") is None else _number(arguments, "layer")
        plan = self._connected(_text(arguments, "printer")).resume_plan(layer)
        return dict(plan.to_dict())

    async def _resume_from_layer(self, arguments: dict[str, Any]) -> dict[str, Any]:
        port = _text(arguments, "printer")
        host = self._connected(port)
        return await self._action(port, host.resume_from_layer(_number(arguments, "layer")))

    async def _emergency_stop(self, arguments: dict[str, Any]) -> dict[str, Any]:
        port = _text(arguments, "printer")
        host = self.hosts.get(port)
        if host is None:
            raise HostCallError(f"No printer is connected on {port}; nothing was sent.")
        host.emergency_stop()
        return host.snapshot().to_dict()

    async def _command(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self._connected(_text(arguments, "printer")).send_command(_text(arguments, "text"))
        return {}

    # -- events and the end -------------------------------------------------------------------
    def _heard(self, port: str, kind: str, snapshot: HostSnapshot) -> None:
        if kind == "rx" and snapshot.message.startswith("ok") and "T:" not in snapshot.message:
            return  # one per line: too many to pass on; the terminal shows the rest
        self.on_event(port, kind, snapshot.to_dict())

    async def shutdown(self) -> list[str]:
        """Stop every running print (heaters off, confirmed when the printer answers), then
        disconnect every printer. Returns what was done, for people."""
        said: list[str] = []
        for port, host in list(self.hosts.items()):
            if host.active_job is not None and host.connected:
                name = host.snapshot().file
                try:
                    outcome = await asyncio.wait_for(host.abort(), STOP_TIMEOUT_S)
                    said.append(f"Stopped the print of {name} on {port}: {outcome.message}")
                except Exception as error:  # shutting down: say it, go on with the others
                    log.exception("stopping the print on %s failed", port)
                    said.append(
                        f"The print of {name} on {port} was stopped, but the printer did not "
                        f"confirm heaters off ({error}): check the printer."
                    )
            if host.connected:
                await host.disconnect()
        self.hosts.clear()
        return said
