"""The physical printer tools: print, pause, resume, resume from a layer, cancel.

They are `SideEffect.PHYSICAL`: the registry refuses them until a person confirmed. Results
report the state the printer confirmed (ActionOutcome); when it did not confirm in time, the
message says the action was requested. A USB print goes to the printer host, so it outlives the
command that started it; without a host it is refused. `wait` polls the host, so another command
can still pause or cancel the print meanwhile.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.printing.config import PrinterProfile
from workbench_plugins.printing.gate import check_print, record_override
from workbench_plugins.printing.gcode_check import NotGcode, check_gcode
from workbench_plugins.printing.host.protocol import HostCallError, HostUnavailable
from workbench_plugins.printing.outcomes import ActionOutcome
from workbench_plugins.printing.printers import NO_HOST, PrinterManager, manager_for
from workbench_plugins.printing.prusalink.control import prusalink_action, prusalink_print
from workbench_plugins.printing.slicing.slice_tool import outputs_folder
from workbench_plugins.printing.tools.status import PrinterArgs, named_printer, on_printers
from workbench_plugins.printing.usb.serial_port import SerialHostError

OFFER_MARK = " It can resume from layer"  # where a refused resume's message offers a layer
WAIT_POLL_S = 1.0  # `wait`: how often the host is asked how the print goes
RUNNING = ("printing", "paused", "connecting")


class PrintArgs(PrinterArgs):
    gcode_path: str = Field(..., min_length=1, description="G-code from slice_model")
    candidate_id: str | None = Field(
        None, description="Optional: the gate finds the candidate a sliced file was made from"
    )
    override: bool = Field(False, description="Print a non-ready candidate (engineer's word)")
    override_reason: str = Field("", description="Why the engineer overrides readiness")
    wait: bool = Field(
        False,
        description="USB only: return when the print has ended (others can still pause or "
        "cancel it meanwhile)",
    )


class LayerArgs(PrinterArgs):
    layer: int = Field(
        ..., ge=1, description="The layer to resume from, 1 = the first (the offer names it)"
    )


class ActionResult(BaseModel):
    printer: str
    action: str
    state: str
    message: str
    confirmed: bool = False  # the printer reported the state the action asked for
    candidate_id: str | None = None
    ready: bool | None = None
    overridden: bool = False
    override_reason: str = ""
    blocking: list[str] = []
    ledger_evidence_id: int | None = None


# -- print --------------------------------------------------------------------------------------
def print_file(args: PrintArgs, context: ToolContext) -> Path:
    """The G-code read (the registry's `files`): relative paths in the printing outputs."""
    return context.file(args.gcode_path, mode="read", base=outputs_folder(context))


async def upload_and_print(args: PrintArgs, context: ToolContext) -> ActionResult:
    gcode = print_file(args, context)
    if not gcode.is_file():
        raise ToolFailure(f"The G-code {gcode} does not exist.", hint="Slice the model first.")
    manager = manager_for(context.app)
    profile = await named_printer(manager, args.printer)
    try:  # before anything reaches a printer, override or not
        await asyncio.to_thread(check_gcode, gcode)
    except NotGcode as error:
        raise ToolFailure(str(error), hint="Print a G-code file slice_model wrote.") from None
    decision = check_print(
        context.app.ledger,
        context.app.store,
        gcode,
        args.candidate_id,
        override=args.override,
        reason=args.override_reason,
    )
    if profile.transport == "prusalink":
        outcome = await on_printers(manager, _prusalink_print(manager, profile, gcode))
    else:
        outcome = await _serial_print(manager, profile, gcode, args.wait)
    evidence = record_override(
        context.app.ledger,
        decision,
        reason=args.override_reason,
        printer=profile.name,
        gcode=str(gcode),
        tool_call_id=context.call_id,
    )
    note = f" Overridden readiness ({', '.join(decision.blocking)})." if decision.overridden else ""
    return ActionResult(
        printer=profile.name,
        action="print",
        state=outcome.state,
        message=outcome.message + note,
        confirmed=outcome.confirmed,
        candidate_id=decision.candidate_id,
        ready=decision.ready,
        overridden=decision.overridden,
        override_reason=args.override_reason if decision.overridden else "",
        blocking=decision.blocking,
        ledger_evidence_id=evidence,
    )


async def _prusalink_print(
    manager: PrinterManager, profile: PrinterProfile, gcode: Path
) -> ActionOutcome:
    async with manager.prusalink(profile.name) as client:
        return await prusalink_print(client, gcode)


async def _serial_print(
    manager: PrinterManager, profile: PrinterProfile, gcode: Path, wait: bool
) -> ActionOutcome:
    try:
        snap = await manager.run(
            manager.serial(
                "print",
                printer=profile.address,
                path=str(gcode.resolve()),
                baudrate=profile.baudrate,
            )
        )
        if wait:
            snap = await _wait_for_end(manager, profile.address, snap)
    except HostUnavailable:
        raise ToolFailure(f"Not printing {gcode.name}: {NO_HOST}") from None
    except SerialHostError as error:
        raise ToolFailure(str(error)) from None
    state = str(snap["state"])
    if _finished(snap):
        return ActionOutcome("finished", f"Printed {gcode.name} on {profile.name}: finished.", True)
    if wait:
        raise ToolFailure(
            f"The print of {gcode.name} on {profile.name} ended before its last line: it is "
            f"{state} ({snap.get('message') or 'no reason given'})."
        )
    # confirmed only by the printer's ok to a line of the file, not by the host's own state
    acknowledged = state == "printing" and int(snap.get("line") or 0) > 0
    if acknowledged:
        message = (
            f"Printing {gcode.name} on {profile.name}; the printer host streams it, so it goes "
            "on after this call."
        )
    elif state == "printing":
        message = (
            f"Asked {profile.name} to print {gcode.name}, but the printer has not acknowledged "
            "a line of it yet: check get_printer_status (the printer host stops and says so "
            "if the printer does not answer)."
        )
    else:
        said = snap.get("message") or "no reason given"
        message = f"Asked {profile.name} to print {gcode.name}; it reports {state} ({said})."
    return ActionOutcome(state, message, acknowledged)


def _finished(snap: dict[str, Any]) -> bool:
    total = int(snap.get("total") or 0)
    done = total > 0 and int(snap.get("line") or 0) >= total
    return snap.get("state") == "finished" or (done and snap.get("state") not in RUNNING)


async def _wait_for_end(
    manager: PrinterManager, port: str, started: dict[str, Any]
) -> dict[str, Any]:
    """Poll the host until the print of `started` is no longer running (it may be paused and
    resumed by others meanwhile); the last status."""
    snap = started
    while snap.get("state") in RUNNING and snap.get("file") == started.get("file"):
        await asyncio.sleep(WAIT_POLL_S)
        snap = await manager.run(manager.serial("status", printer=port))
    return snap


# -- pause, resume, cancel ----------------------------------------------------------------------
Action = Literal["pause", "resume", "cancel"]


async def _act(context: ToolContext, printer: str, action: Action) -> ActionResult:
    manager = manager_for(context.app)
    profile = await named_printer(manager, printer)
    if profile.transport == "prusalink":
        outcome = await on_printers(manager, _prusalink_act(manager, profile, action))
    else:
        outcome = await _serial_act(manager, profile, action, {})
    return ActionResult(
        printer=profile.name,
        action=action,
        state=outcome.state,
        message=outcome.message,
        confirmed=outcome.confirmed,
    )


async def _prusalink_act(
    manager: PrinterManager, profile: PrinterProfile, action: Action
) -> ActionOutcome:
    async with manager.prusalink(profile.name) as client:
        return await prusalink_action(client, action)


async def _serial_act(
    manager: PrinterManager, profile: PrinterProfile, op: str, arguments: dict[str, Any]
) -> ActionOutcome:
    try:
        result = await manager.run(manager.serial(op, printer=profile.address, **arguments))
    except HostUnavailable:
        raise ToolFailure(f"{profile.name} is not connected. {NO_HOST}") from None
    except SerialHostError as error:
        if isinstance(error, HostCallError) and error.offer is not None:
            raise ToolFailure(
                f"{error} {offer_text(profile.name, error.offer)}",  # holds OFFER_MARK
                hint="Ask the engineer before resuming from a layer: it moves the printer.",
            ) from None
        raise ToolFailure(str(error)) from None
    outcome = result["outcome"]
    return ActionOutcome(str(outcome["state"]), str(outcome["message"]), bool(outcome["confirmed"]))


def offer_text(printer: str, offer: dict[str, Any]) -> str:
    """A refused resume's offer, for people and for the agent: the layer and every step."""
    steps = " ".join(f"{number}. {step}" for number, step in enumerate(offer.get("steps", []), 1))
    layer = offer.get("layer")
    return (
        f"{OFFER_MARK.strip()} {layer} (Z {offer.get('z')} mm, file line {offer.get('line')}) "
        f"instead: {steps} To do that, call resume_from_layer with printer {printer!r} and "
        f"layer {layer}."
    )


async def pause_print(args: PrinterArgs, context: ToolContext) -> ActionResult:
    return await _act(context, args.printer, "pause")


async def resume_print(args: PrinterArgs, context: ToolContext) -> ActionResult:
    return await _act(context, args.printer, "resume")


async def cancel_print(args: PrinterArgs, context: ToolContext) -> ActionResult:
    return await _act(context, args.printer, "cancel")


async def resume_from_layer(args: LayerArgs, context: ToolContext) -> ActionResult:
    manager = manager_for(context.app)
    profile = await named_printer(manager, args.printer)
    if profile.transport == "prusalink":
        raise ToolFailure(
            f"{profile.name} prints through PrusaLink, which resumes its own prints: use "
            "resume_print. Resuming from a layer is for USB printers."
        )
    outcome = await _serial_act(manager, profile, "resume_from_layer", {"layer": args.layer})
    return ActionResult(
        printer=profile.name,
        action="resume_from_layer",
        state=outcome.state,
        message=outcome.message,
        confirmed=outcome.confirmed,
    )
