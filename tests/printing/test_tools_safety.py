"""Acceptance 5 (agent path): no physical action without confirmation; a non-ready ledger
candidate is refused unless overridden, and the override is recorded. Also acceptance 4 and the
serial path through the same registry calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rigs.marlin_emulator import executed_commands, running_emulator
from tests.rigs.prusalink_server import running_prusalink
from workbench.core.ledger import Adjudication, InvariantKind
from workbench.core.secrets import set_secret
from workbench_plugins.printing.config import prusalink_secret_key

PHYSICAL = ["upload_and_print", "pause_print", "resume_print", "cancel_print"]


@pytest.fixture
def gcode(tmp_path: Path) -> Path:
    path = tmp_path / "part.gcode"
    path.write_text("M104 S215\n" + "".join(f"G1 X{i} Y{i}\n" for i in range(50)))
    return path


@pytest.fixture
def link(app: object):  # type: ignore[no-untyped-def]
    with running_prusalink() as server:
        set_secret(prusalink_secret_key(server.url, "api_key"), "secret-key")
        yield server


def candidate(app: object, *, watertight: bool) -> str:
    ledger = app.ledger  # type: ignore[attr-defined]
    ledger.define_invariant(
        "beam:test",
        "watertight_export",
        "The STL is a closed solid.",
        kind=InvariantKind.CONSTRAINT,
        observables=["is_watertight"],
    )
    made = ledger.propose("beam:test", "topopt.design", {"design": "abc", "w": watertight})
    ledger.record_evidence(
        candidate=made,
        invariant="watertight_export",
        adjudication=Adjudication.SUPPORTED if watertight else Adjudication.VIOLATED,
        measurements={"is_watertight": watertight},
    )
    return made.id


@pytest.mark.parametrize("tool", PHYSICAL)
def test_physical_tools_need_confirmation(
    app: object, link: object, gcode: Path, tool: str
) -> None:
    args = {"printer": link.url}  # type: ignore[attr-defined]
    if tool == "upload_and_print":
        args["gcode_path"] = str(gcode)
    outcome = app.registry.call(tool, args, caller="agent")  # type: ignore[attr-defined]
    assert not outcome.ok and outcome.error.kind == "confirmation_required"
    assert link.printer.requests == []  # type: ignore[attr-defined]  # nothing reached the printer
    assert app.registry.get(tool).confirm  # type: ignore[attr-defined]


def test_confirmed_prusalink_print_pause_resume_cancel_and_status(
    app: object, link: object, gcode: Path
) -> None:
    url = link.url  # type: ignore[attr-defined]
    call = app.registry.call  # type: ignore[attr-defined]
    done = call(
        "upload_and_print",
        {"printer": url, "gcode_path": str(gcode)},
        caller="agent",
        confirmed=True,
    )
    assert done.ok, done.error
    assert done.result["state"] == "printing"
    for tool, state in [
        ("pause_print", "paused"),
        ("resume_print", "printing"),
        ("cancel_print", "stopped"),
    ]:
        outcome = call(tool, {"printer": url}, caller="agent", confirmed=True)
        assert outcome.ok and outcome.result["state"] == state, outcome.error
    status = call("get_printer_status", {"printer": url}, caller="agent")
    assert status.ok and status.result["state"] == "stopped"
    assert status.result["temperatures"]["nozzle"] == [25.0, 0.0]


def test_missing_or_wrong_key_is_a_clear_tool_error(app: object, gcode: Path) -> None:
    with running_prusalink() as server:
        outcome = app.registry.call(  # type: ignore[attr-defined]
            "get_printer_status", {"printer": server.url}, caller="agent"
        )
        assert not outcome.ok and "No PrusaLink API key" in outcome.error.message
        set_secret(prusalink_secret_key(server.url, "api_key"), "nope")
        outcome = app.registry.call(  # type: ignore[attr-defined]
            "get_printer_status", {"printer": server.url}, caller="agent"
        )
        assert not outcome.ok and "refused the API key (HTTP 401)" in outcome.error.message


def test_not_ready_candidate_is_refused_unless_overridden(
    app: object, link: object, gcode: Path
) -> None:
    call, url = app.registry.call, link.url  # type: ignore[attr-defined]
    bad = candidate(app, watertight=False)
    args = {"printer": url, "gcode_path": str(gcode), "candidate_id": bad}
    refused = call("upload_and_print", args, caller="agent", confirmed=True)
    assert not refused.ok and "not ready" in refused.error.message
    assert "watertight_export" in refused.error.message and "override" in refused.error.hint
    no_reason = call("upload_and_print", {**args, "override": True}, caller="agent", confirmed=True)
    assert not no_reason.ok and "override_reason" in no_reason.error.message
    assert link.printer.files == {}  # type: ignore[attr-defined]

    overridden = call(
        "upload_and_print",
        {**args, "override": True, "override_reason": "test coupon, leak does not matter"},
        caller="agent",
        confirmed=True,
    )
    assert overridden.ok, overridden.error
    result = overridden.result
    assert result["overridden"] and result["blocking"] == ["watertight_export"]
    assert result["override_reason"] == "test coupon, leak does not matter"
    ledger = app.ledger  # type: ignore[attr-defined]
    evidence = ledger.evidence_record(result["ledger_evidence_id"])
    assert evidence.invariant_name == "print_override" and "test coupon" in evidence.note
    assert evidence.tool_call_id == overridden.call_id
    assert not ledger.readiness(bad).ready  # the override never makes it look ready
    recorded = app.store.tool_calls("upload_and_print")[-1]  # type: ignore[attr-defined]
    assert recorded["arguments"]["override"] is True


def test_ready_candidate_prints_without_override(app: object, link: object, gcode: Path) -> None:
    good = candidate(app, watertight=True)
    outcome = app.registry.call(  # type: ignore[attr-defined]
        "upload_and_print",
        {"printer": link.url, "gcode_path": str(gcode), "candidate_id": good},  # type: ignore[attr-defined]
        caller="agent",
        confirmed=True,
    )
    assert outcome.ok and outcome.result["ready"] is True and not outcome.result["overridden"]


def test_serial_print_through_the_registry(app: object, gcode: Path, tmp_path: Path) -> None:
    log = tmp_path / "executed.log"
    with running_emulator(log) as printer:
        outcome = app.registry.call(  # type: ignore[attr-defined]
            "upload_and_print",
            {"printer": printer.port, "gcode_path": str(gcode), "wait": True},
            caller="agent",
            confirmed=True,
        )
        assert outcome.ok, outcome.error
        status = app.registry.call(  # type: ignore[attr-defined]
            "get_printer_status", {"printer": printer.port}, caller="agent"
        )
    assert status.result["progress"] == 1.0 and status.result["state"] == "idle"
    executed = [c for c in executed_commands(log) if c not in ("M110 N0", "M155 S2")]
    assert executed == [line for line in gcode.read_text().splitlines()]


def test_closing_the_app_disconnects_printers_and_stops_their_loop(
    workbench_home: Path, tmp_path: Path
) -> None:
    from workbench.core.context import AppContext
    from workbench_plugins.printing.printers import manager_for

    app = AppContext.open()
    with running_emulator(tmp_path / "executed.log") as printer:
        manager = manager_for(app)
        host = manager.submit(manager.serial(printer.port)).result(10)
        assert host.connected and manager._thread.is_alive()
        app.close()
        assert not host.connected
        assert not manager._thread.is_alive()
