"""Printer tools that look and connect: list, status, connect, disconnect (and the shared models).

A printer is named by its profile's name or address, a PrusaLink URL or a serial port there is
(named_printer: any other name is refused, never taken as a port path). USB requests go to the
printer host (printers.PrinterManager.serial): this process when it hosts, else the host
on the socket; without one, a USB printer is "not connected" and the message says how to start a
host. PrusaLink printers answer over HTTP from any process. The physical actions are in
actions.py. Every tool is async: the work runs on the printers' own loop.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from workbench.core.secrets import SecretUnavailable
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.printing.config import PrinterProfile
from workbench_plugins.printing.host.protocol import HostUnavailable
from workbench_plugins.printing.printers import (
    NO_HOST,
    PrinterManager,
    UnknownPrinter,
    manager_for,
)
from workbench_plugins.printing.prusalink.access import MissingSecret
from workbench_plugins.printing.prusalink.client import (
    PrusaLinkError,
    PrusaLinkUnreachable,
    RetryPolicy,
)
from workbench_plugins.printing.prusalink.control import prusalink_status
from workbench_plugins.printing.usb.serial_port import SerialHostError

# list_printers asks every PrusaLink printer: one that is off must not stall the list
LIST_TIMEOUT_S = 3.0


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(_Args):
    pass


class PrinterArgs(_Args):
    printer: str = Field(
        ...,
        min_length=1,
        description="A printer's name (list_printers), or its address: a serial port "
        "(/dev/ttyACM0) or a PrusaLink URL",
    )


class PrinterInfo(BaseModel):
    printer: str
    address: str
    kind: Literal["serial", "prusalink"]
    state: str
    message: str = ""


class PrinterList(BaseModel):
    printers: list[PrinterInfo]
    message: str


class StatusResult(BaseModel):
    printer: str
    address: str = ""
    state: str
    temperatures: dict[str, list[float]] = {}
    progress: float | None = None
    time_left_s: float | None = None
    file: str = ""
    layer: int | None = None
    message: str = ""
    # a USB print that cannot simply resume: the resume-from-layer plan the host offers
    resume_offer: dict[str, Any] | None = None


def not_connected_message(name: str, no_host: bool) -> str:
    if no_host:
        return f"{name} is not connected. {NO_HOST}"
    return (
        f"{name} is not connected. Connect it with connect_printer (or Connect in the Printer "
        "panel); status never connects on its own, since opening the port resets an MK3."
    )


async def named_printer(manager: PrinterManager, printer: str) -> PrinterProfile:
    """The profile of the printer a tool call names; a refusal naming the configured printers
    when there is none (nothing is opened for an unknown name). A port the printer host holds
    counts even when it vanished (unplugged with a held print)."""
    try:
        return manager.named(printer)
    except UnknownPrinter as error:
        if await _hosted(manager, printer.strip()):
            return manager.profile(printer)
        hint = "Call list_printers for the printers there are."
        raise ToolFailure(str(error), hint=hint) from None


async def _hosted(manager: PrinterManager, port: str) -> bool:
    if not port.startswith("/"):
        return False
    try:
        snapshot = await manager.run(manager.serial("status", printer=port))
    except (HostUnavailable, SerialHostError):
        return False
    return snapshot.get("state") != "not connected"


async def on_printers(manager: PrinterManager, coroutine: Any) -> Any:
    """Run `coroutine` on the printers' loop; printer errors become ToolFailures (words only)."""
    try:
        return await manager.run(coroutine)
    except (SerialHostError, PrusaLinkError, SecretUnavailable) as error:
        raise ToolFailure(str(error)) from None


def serial_status(name: str, snapshot: dict[str, Any], *, no_host: bool = False) -> StatusResult:
    state = str(snapshot.get("state", "not connected"))
    message = str(snapshot.get("message") or "")
    if state == "not connected":
        message = not_connected_message(name, no_host)
    return StatusResult(
        printer=name,
        address=str(snapshot.get("port", "")),
        state=state,
        temperatures=snapshot.get("temperatures") or {},
        progress=snapshot.get("progress"),
        time_left_s=snapshot.get("time_left_s"),
        file=str(snapshot.get("file") or ""),
        layer=snapshot.get("layer"),
        message=message,
        resume_offer=snapshot.get("resume"),
    )


# -- list ---------------------------------------------------------------------------------------
async def list_printers(args: NoArgs, context: ToolContext) -> PrinterList:
    manager = manager_for(context.app)
    return await on_printers(manager, _list(manager))


async def _list(manager: PrinterManager) -> PrinterList:
    profiles = manager.profiles()
    hosted: dict[str, dict[str, Any]] | None = None
    try:
        listed = await manager.serial("list")
        hosted = {str(snap["port"]): snap for snap in listed.get("printers", [])}
    except HostUnavailable:
        pass
    found = list(await asyncio.gather(*(_info(manager, p, hosted) for p in profiles)))
    addresses = {profile.address for profile in profiles}
    for port, snap in (hosted or {}).items():
        if port not in addresses:  # connected by address, without a profile
            found.append(
                PrinterInfo(printer=port, address=port, kind="serial", state=snap["state"])
            )
    if not found:
        message = (
            "No printers configured: add one with the Printer panel's Printers... dialog "
            "([[plugins.printing.printers]] in the settings)."
        )
    else:
        message = f"{len(found)} printer(s)."
        if hosted is None and any(info.kind == "serial" for info in found):
            message += f" USB printers show as not connected: {NO_HOST}"
    return PrinterList(printers=found, message=message)


async def _info(
    manager: PrinterManager, profile: PrinterProfile, hosted: dict[str, dict[str, Any]] | None
) -> PrinterInfo:
    info = PrinterInfo(
        printer=profile.name, address=profile.address, kind=profile.transport, state=""
    )
    if profile.transport == "serial":
        snap = (hosted or {}).get(profile.address)
        info.state = str(snap["state"]) if snap else "not connected"
        info.message = str(snap.get("message") or "") if snap else ""
        return info
    try:
        options = {"timeout_s": LIST_TIMEOUT_S, "retry": RetryPolicy(attempts=1)}
        async with manager.prusalink(profile.name, **options) as client:
            status = await asyncio.wait_for(
                prusalink_status(client, profile.name), 2 * LIST_TIMEOUT_S
            )
        info.state, info.message = status.state, status.message
    except MissingSecret as error:
        info.state, info.message = "no key", str(error)
    except PrusaLinkUnreachable as error:
        info.state, info.message = f"unreachable: {error.last}", str(error)
    except TimeoutError:
        info.state = f"unreachable: no answer within {2 * LIST_TIMEOUT_S:.0f} s"
    except (PrusaLinkError, SecretUnavailable) as error:
        info.state, info.message = "error", str(error)
    return info


# -- status -------------------------------------------------------------------------------------
async def get_printer_status(args: PrinterArgs, context: ToolContext) -> StatusResult:
    manager = manager_for(context.app)
    profile = await named_printer(manager, args.printer)
    if profile.transport == "prusalink":
        return await on_printers(manager, _prusalink_status(manager, profile))
    return await on_printers(manager, _serial_status(manager, profile))


async def _serial_status(manager: PrinterManager, profile: PrinterProfile) -> StatusResult:
    try:
        snapshot = await manager.serial("status", printer=profile.address)
    except HostUnavailable:
        return serial_status(profile.name, {"port": profile.address}, no_host=True)
    return serial_status(profile.name, snapshot)


async def _prusalink_status(manager: PrinterManager, profile: PrinterProfile) -> StatusResult:
    async with manager.prusalink(profile.name) as client:
        status = await prusalink_status(client, profile.name)
    return StatusResult(address=profile.address, **vars(status))


# -- connect / disconnect -----------------------------------------------------------------------
async def connect_printer(args: PrinterArgs, context: ToolContext) -> StatusResult:
    manager = manager_for(context.app)
    profile = await named_printer(manager, args.printer)
    if profile.transport == "prusalink":
        status = await on_printers(manager, _prusalink_status(manager, profile))
        status.message = f"PrusaLink needs no connection; {profile.name} answers: {status.message}"
        return status
    try:
        snapshot = await manager.run(
            manager.serial("connect", printer=profile.address, baudrate=profile.baudrate)
        )
    except HostUnavailable:
        raise ToolFailure(f"Not connected: {NO_HOST}") from None
    except SerialHostError as error:
        raise ToolFailure(str(error)) from None
    status = serial_status(profile.name, snapshot)
    status.message = f"Connected to {profile.name}; it is {status.state}. {status.message}".strip()
    return status


async def disconnect_printer(args: PrinterArgs, context: ToolContext) -> StatusResult:
    manager = manager_for(context.app)
    profile = await named_printer(manager, args.printer)
    if profile.transport == "prusalink":
        return StatusResult(
            printer=profile.name,
            address=profile.address,
            state="not applicable",
            message="PrusaLink printers are not held open; there is nothing to disconnect.",
        )
    try:
        snapshot = await manager.run(manager.serial("disconnect", printer=profile.address))
    except HostUnavailable:
        return serial_status(profile.name, {"port": profile.address}, no_host=True)
    except SerialHostError as error:
        raise ToolFailure(str(error)) from None
    status = serial_status(profile.name, snapshot)
    status.message = (
        f"Disconnected {profile.name}; the port is free. Connect it again with connect_printer."
    )
    return status
