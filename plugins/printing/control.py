"""Printer tools: list, status, and the physical actions (print, pause, resume, cancel).

Physical tools are `SideEffect.PHYSICAL`, so the registry refuses them until a person confirmed.
They are async: the work runs on the printers' own loop (printers.PrinterManager).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from workbench.core.secrets import SecretUnavailable
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.printing.gate import check_print, record_override
from workbench_plugins.printing.printers import PrinterManager, is_url, manager_for
from workbench_plugins.printing.prusalink import PrusaLinkError
from workbench_plugins.printing.serial_port import SerialHostError
from workbench_plugins.printing.slicing import outputs_folder


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(_Args):
    pass


class PrinterArgs(_Args):
    printer: str = Field(
        ..., min_length=1, description="A serial port (/dev/ttyACM0) or a PrusaLink URL"
    )


class PrintArgs(PrinterArgs):
    gcode_path: str = Field(..., min_length=1, description="G-code from slice_model")
    candidate_id: str | None = Field(
        None, description="Optional: the gate finds the candidate a sliced file was made from"
    )
    override: bool = Field(False, description="Print a non-ready candidate (engineer's word)")
    override_reason: str = Field("", description="Why the engineer overrides readiness")
    wait: bool = Field(False, description="Serial only: return when the print has finished")


class PrinterInfo(BaseModel):
    printer: str
    kind: Literal["serial", "prusalink"]
    state: str


class PrinterList(BaseModel):
    printers: list[PrinterInfo]
    message: str


class StatusResult(BaseModel):
    printer: str
    state: str
    temperatures: dict[str, list[float]] = {}
    progress: float | None = None
    time_left_s: float | None = None
    file: str = ""
    message: str = ""


class ActionResult(BaseModel):
    printer: str
    action: str
    state: str
    message: str
    candidate_id: str | None = None
    ready: bool | None = None
    overridden: bool = False
    override_reason: str = ""
    blocking: list[str] = []
    ledger_evidence_id: int | None = None


async def _on_printer(context: ToolContext, coroutine: Any) -> Any:
    manager = manager_for(context.app)
    try:
        return await manager.run(coroutine)
    except (SerialHostError, PrusaLinkError, SecretUnavailable) as error:
        raise ToolFailure(str(error)) from None


def list_printers(args: NoArgs, context: ToolContext) -> PrinterList:
    manager = manager_for(context.app)
    found = []
    for name in manager.known():
        host = manager.hosts.get(name)
        state = host.state.value if host else ("unknown" if is_url(name) else "not connected")
        found.append(
            PrinterInfo(printer=name, kind="prusalink" if is_url(name) else "serial", state=state)
        )
    message = (
        f"{len(found)} printer(s)."
        if found
        else ("No printers configured: add serial ports or PrusaLink URLs to the printers setting.")
    )
    return PrinterList(printers=found, message=message)


async def get_printer_status(args: PrinterArgs, context: ToolContext) -> StatusResult:
    manager = manager_for(context.app)
    if is_url(args.printer):
        return await _on_printer(context, _prusalink_status(manager, args.printer))
    host = manager.hosts.get(args.printer)
    if host is None:
        return StatusResult(
            printer=args.printer,
            state="not connected",
            message="Not connected; opening the port resets an MK3, so status "
            "does not connect on its own.",
        )
    snap = host.snapshot().to_dict()
    return StatusResult(
        printer=args.printer,
        **{
            k: snap[k]
            for k in ("state", "temperatures", "progress", "time_left_s", "file", "message")
        },
    )


async def _prusalink_status(manager: PrinterManager, url: str) -> StatusResult:
    async with manager.prusalink(url) as client:
        status = await client.status()
    printer, job = status.get("printer", {}), status.get("job") or {}
    return StatusResult(
        printer=url,
        state=str(printer.get("state", "UNKNOWN")).lower(),
        temperatures={
            "nozzle": [printer.get("temp_nozzle", 0.0), printer.get("target_nozzle", 0.0)],
            "bed": [printer.get("temp_bed", 0.0), printer.get("target_bed", 0.0)],
        },
        progress=(job["progress"] / 100) if "progress" in job else None,
        time_left_s=job.get("time_remaining"),
    )


def print_file(args: PrintArgs, context: ToolContext) -> Path:
    """The G-code read (the registry's `files`): relative paths in the printing outputs."""
    return context.file(args.gcode_path, mode="read", base=outputs_folder(context))


async def upload_and_print(args: PrintArgs, context: ToolContext) -> ActionResult:
    gcode = print_file(args, context)
    if not gcode.is_file():
        raise ToolFailure(f"The G-code {gcode} does not exist.", hint="Slice the model first.")
    decision = check_print(
        context.app.ledger,
        context.app.store,
        gcode,
        args.candidate_id,
        override=args.override,
        reason=args.override_reason,
    )
    manager = manager_for(context.app)
    if is_url(args.printer):
        state = await _on_printer(context, _prusalink_print(manager, args.printer, gcode))
    else:
        state = await _on_printer(context, _serial_print(manager, args.printer, gcode, args.wait))
    evidence = record_override(
        context.app.ledger,
        decision,
        reason=args.override_reason,
        printer=args.printer,
        gcode=str(gcode),
        tool_call_id=context.call_id,
    )
    note = f" Overridden readiness ({', '.join(decision.blocking)})." if decision.overridden else ""
    return ActionResult(
        printer=args.printer,
        action="print",
        state=state,
        message=f"Printing {gcode.name} on {args.printer} ({state}).{note}",
        candidate_id=decision.candidate_id,
        ready=decision.ready,
        overridden=decision.overridden,
        override_reason=args.override_reason if decision.overridden else "",
        blocking=decision.blocking,
        ledger_evidence_id=evidence,
    )


async def _prusalink_print(manager: PrinterManager, url: str, gcode: Path) -> str:
    async with manager.prusalink(url) as client:
        await client.upload(gcode, print_after=True)
        status = await client.status()
    return str(status.get("printer", {}).get("state", "unknown")).lower()


async def _serial_print(manager: PrinterManager, port: str, gcode: Path, wait: bool) -> str:
    host = await manager.serial(port)
    await host.start_print(gcode)
    if wait:
        await host.wait_idle(timeout=7 * 24 * 3600)
        if host.job is None or not host.job.done:
            raise SerialHostError(f"The print stopped: {host.message}")
    return host.state.value


async def _serial_action(manager: PrinterManager, port: str, action: str) -> str:
    host = manager.hosts.get(port)
    if host is None or not host.connected:
        raise SerialHostError(f"The printer on {port} is not connected.")
    if action == "pause":
        host.pause()
    elif action == "resume":
        host.resume()
    else:
        host.abort()
    return host.state.value


async def _prusalink_action(manager: PrinterManager, url: str, action: str) -> str:
    async with manager.prusalink(url) as client:
        await {"pause": client.pause, "resume": client.resume, "cancel": client.stop}[action]()
        status = await client.status()
    return str(status.get("printer", {}).get("state", "unknown")).lower()


def _action(action: str) -> Any:
    async def run(args: PrinterArgs, context: ToolContext) -> ActionResult:
        manager = manager_for(context.app)
        job = (_prusalink_action if is_url(args.printer) else _serial_action)(
            manager, args.printer, action
        )
        state = await _on_printer(context, job)
        return ActionResult(
            printer=args.printer,
            action=action,
            state=state,
            message=f"{action} sent to {args.printer}; it is now {state}.",
        )

    run.__name__ = f"{action}_print"
    return run


pause_print = _action("pause")
resume_print = _action("resume")
cancel_print = _action("cancel")
