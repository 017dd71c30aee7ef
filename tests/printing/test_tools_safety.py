"""Acceptance 5 (agent path): no physical action without confirmation; a non-ready ledger
candidate is refused unless overridden, and the override is recorded. Also acceptance 4 and the
serial path through the same registry calls."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.printing.conftest import needs_slicer
from tests.rigs.marlin_emulator import executed_commands, running_emulator
from tests.rigs.prusalink_server import running_prusalink
from workbench.core.ledger import Adjudication, InvariantKind
from workbench.core.secrets import set_secret
from workbench_plugins.printing.config import prusalink_secret_key

PHYSICAL = ["upload_and_print", "pause_print", "resume_print", "cancel_print"]


@pytest.fixture
def gcode(app: object) -> Path:
    """A G-code in the workspace's printing outputs, of unknown origin until `tie`d."""
    folder = app.store.folder / "outputs" / "printing"  # type: ignore[attr-defined]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "part.gcode"
    path.write_text("M104 S215\n" + "".join(f"G1 X{i} Y{i}\n" for i in range(50)))
    return path


def tie(app: object, gcode: Path, candidate_id: str) -> None:
    """The lineage slice_model records: the G-code artifact names the candidate it came from."""
    app.store.add_artifact(gcode, kind="gcode", meta={"candidate_id": candidate_id})  # type: ignore[attr-defined]


@pytest.fixture
def link(app: object):  # type: ignore[no-untyped-def]
    with running_prusalink() as server:
        set_secret(prusalink_secret_key(server.url, "api_key"), "secret-key")
        yield server


def print_with_override(app: object, args: dict, reason: str):  # type: ignore[no-untyped-def]
    """upload_and_print confirmed and overridden with `reason`; the call must succeed."""
    outcome = app.registry.call(  # type: ignore[attr-defined]
        "upload_and_print",
        {**args, "override": True, "override_reason": reason},
        caller="agent",
        confirmed=True,
    )
    assert outcome.ok, outcome.error
    return outcome


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
    tie(app, gcode, candidate(app, watertight=True))
    done = call(
        "upload_and_print",
        {"printer": url, "gcode_path": str(gcode)},
        caller="agent",
        confirmed=True,
    )
    assert done.ok, done.error
    assert done.result["state"] == "printing" and done.result["confirmed"]
    printing = call("get_printer_status", {"printer": url}, caller="agent")
    assert printing.result["file"] == "part.gcode"  # defect 9: the status names the file
    for tool, state in [
        ("pause_print", "paused"),
        ("resume_print", "printing"),
        ("cancel_print", "stopped"),
    ]:
        outcome = call(tool, {"printer": url}, caller="agent", confirmed=True)
        assert outcome.ok and outcome.result["state"] == state, outcome.error
        assert outcome.result["confirmed"]  # defect 7: the state the printer then reported
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
        message = outcome.error.message  # PrusaLink 0.8.1 answers 403 "Bad X-Api-Key."
        assert not outcome.ok and "refused the API key (HTTP 403" in message
        assert prusalink_secret_key(server.url, "api_key") in message


def test_not_ready_candidate_is_refused_unless_overridden(
    app: object, link: object, gcode: Path
) -> None:
    """No candidate_id given: the gate finds the file's candidate through its lineage."""
    call, url = app.registry.call, link.url  # type: ignore[attr-defined]
    bad = candidate(app, watertight=False)
    tie(app, gcode, bad)
    args = {"printer": url, "gcode_path": str(gcode)}
    refused = call("upload_and_print", args, caller="agent", confirmed=True)
    assert not refused.ok and "not ready" in refused.error.message
    assert "watertight_export" in refused.error.message and "override" in refused.error.hint
    no_reason = call("upload_and_print", {**args, "override": True}, caller="agent", confirmed=True)
    assert not no_reason.ok and "override_reason" in no_reason.error.message
    assert link.printer.files == {}  # type: ignore[attr-defined]

    overridden = print_with_override(app, args, "test coupon, leak does not matter")
    result = overridden.result
    assert result["candidate_id"] == bad
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
    tie(app, gcode, good)
    outcome = app.registry.call(  # type: ignore[attr-defined]
        "upload_and_print",
        {"printer": link.url, "gcode_path": str(gcode)},  # type: ignore[attr-defined]
        caller="agent",
        confirmed=True,
    )
    assert outcome.ok and outcome.result["ready"] is True and not outcome.result["overridden"]
    assert outcome.result["candidate_id"] == good


def test_a_file_of_unknown_origin_is_refused_unless_overridden(
    app: object, link: object, gcode: Path
) -> None:
    """Naming a ready candidate does not vouch for a file that is not tied to it."""
    call, url = app.registry.call, link.url  # type: ignore[attr-defined]
    good = candidate(app, watertight=True)
    for named in ({}, {"candidate_id": good}):
        args = {"printer": url, "gcode_path": str(gcode), **named}
        refused = call("upload_and_print", args, caller="agent", confirmed=True)
        assert not refused.ok and "origin of part.gcode is unknown" in refused.error.message
    assert link.printer.files == {}  # type: ignore[attr-defined]

    overridden = print_with_override(app, args, "calibration cube from the vendor")
    result = overridden.result
    assert result["overridden"] and result["blocking"] == ["unknown_origin"]
    assert result["candidate_id"] == good and result["ready"] is True
    evidence = app.ledger.evidence_record(result["ledger_evidence_id"])  # type: ignore[attr-defined]
    assert "calibration cube" in evidence.note and "unknown_origin" in evidence.note


def test_an_edited_file_loses_its_lineage(app: object, link: object, gcode: Path) -> None:
    tie(app, gcode, candidate(app, watertight=True))
    gcode.write_text(gcode.read_text() + "G1 X999\n")  # no longer what was sliced
    refused = app.registry.call(  # type: ignore[attr-defined]
        "upload_and_print",
        {"printer": link.url, "gcode_path": str(gcode)},  # type: ignore[attr-defined]
        caller="agent",
        confirmed=True,
    )
    assert not refused.ok and "unknown" in refused.error.message
    assert link.printer.files == {}  # type: ignore[attr-defined]


def test_a_named_candidate_must_be_the_files_own(app: object, link: object, gcode: Path) -> None:
    bad, good = candidate(app, watertight=False), candidate(app, watertight=True)
    tie(app, gcode, bad)
    refused = app.registry.call(  # type: ignore[attr-defined]
        "upload_and_print",
        {"printer": link.url, "gcode_path": str(gcode), "candidate_id": good},  # type: ignore[attr-defined]
        caller="agent",
        confirmed=True,
    )
    assert not refused.ok and f"sliced from candidate {bad[:12]}" in refused.error.message
    assert link.printer.files == {}  # type: ignore[attr-defined]


def test_a_gcode_outside_the_workspace_is_named_in_the_confirmation(
    app: object, link: object, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.gcode"
    outside.write_text("M104 S215\n")
    args = {"printer": link.url, "gcode_path": str(outside)}  # type: ignore[attr-defined]
    refused = app.registry.call("upload_and_print", args, caller="agent")  # type: ignore[attr-defined]
    assert refused.error.kind == "confirmation_required"
    assert refused.error.paths == [str(outside.resolve())]
    assert f"read {outside.resolve()}" in refused.error.message
    needed = app.registry.confirmation_needed("upload_and_print", args)  # type: ignore[attr-defined]
    assert needed is not None and needed.paths == refused.error.paths
    assert link.printer.requests == []  # type: ignore[attr-defined]


def test_a_gcode_link_leading_out_is_refused_even_when_confirmed(
    app: object, link: object, tmp_path: Path
) -> None:
    target = tmp_path / "target.gcode"
    target.write_text("M104 S215\n")
    folder = app.store.folder / "outputs" / "printing"  # type: ignore[attr-defined]
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(target, folder / "linked.gcode")
    arguments = {"printer": link.url, "gcode_path": "linked.gcode"}  # type: ignore[attr-defined]
    overriding = {"override": True, "override_reason": "anything"}
    refused = app.registry.call(  # type: ignore[attr-defined]
        "upload_and_print", {**arguments, **overriding}, caller="agent", confirmed=True
    )
    assert refused.error.kind == "failed" and "symbolic link" in refused.error.message
    assert link.printer.requests == []  # type: ignore[attr-defined]


def test_slice_model_files_are_confined(app: object, cube_stl: Path, tmp_path: Path) -> None:
    """Refused before the slicer runs (so without PrusaSlicer): nothing is written anywhere."""
    call = app.registry.call  # type: ignore[attr-defined]
    folder = app.store.folder / "outputs" / "printing"  # type: ignore[attr-defined]
    out = tmp_path / "out" / "x.gcode"
    refused = call("slice_model", {"stl_path": str(cube_stl), "output_path": str(out)}, caller="a")
    assert refused.error.kind == "confirmation_required"
    assert set(refused.error.paths) == {str(cube_stl.resolve()), str(out.resolve())}
    climbing = call("slice_model", {"stl_path": "../../../cube.stl"}, caller="a", confirmed=True)
    assert climbing.error.kind == "failed" and "'..'" in climbing.error.message
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(cube_stl, folder / "cube.stl")
    linked = call("slice_model", {"stl_path": "cube.stl"}, caller="a", confirmed=True)
    assert linked.error.kind == "failed" and "symbolic link" in linked.error.message
    assert [p.name for p in folder.iterdir()] == ["cube.stl"] and not out.parent.exists()
    assert app.store.artifacts() == []  # type: ignore[attr-defined]


def test_serial_print_through_the_registry(app: object, gcode: Path, tmp_path: Path) -> None:
    """In the hosting process (as in the desktop app): print and wait, then read the status."""
    from workbench_plugins.printing.printers import manager_for

    manager_for(app).host_here()
    tie(app, gcode, candidate(app, watertight=True))
    log = tmp_path / "executed.log"
    with running_emulator(log) as printer:
        outcome = app.registry.call(  # type: ignore[attr-defined]
            "upload_and_print",
            {"printer": printer.port, "gcode_path": str(gcode), "wait": True},
            caller="agent",
            confirmed=True,
        )
        assert outcome.ok, outcome.error
        assert outcome.result["state"] == "finished" and outcome.result["confirmed"]
        assert outcome.result["message"] == f"Printed part.gcode on {printer.port}: finished."
        status = app.registry.call(  # type: ignore[attr-defined]
            "get_printer_status", {"printer": printer.port}, caller="agent"
        )
    assert status.result["progress"] == 1.0 and status.result["file"] == "part.gcode"
    lines = gcode.read_text().splitlines()
    assert executed_commands(log)[-len(lines) :] == lines  # after the link's own set-up


def test_without_a_printer_host_a_usb_print_is_refused_and_nothing_is_sent(
    app: object, gcode: Path, tmp_path: Path
) -> None:
    """Defect 3 (one-shot process): a print that would die with the command never starts."""
    log = tmp_path / "executed.log"
    with running_emulator(log) as printer:
        outcome = app.registry.call(  # type: ignore[attr-defined]
            "upload_and_print",
            {
                "printer": printer.port,
                "gcode_path": str(gcode),
                "override": True,
                "override_reason": "test",
            },
            caller="cli",
            confirmed=True,
        )
        connect = app.registry.call(  # type: ignore[attr-defined]
            "connect_printer", {"printer": printer.port}, caller="cli", confirmed=True
        )
    assert not outcome.ok and "No printer host runs" in outcome.error.message
    assert "`workbench --headless serve`" in outcome.error.message
    assert "desktop app" in outcome.error.message
    assert not connect.ok and "`workbench --headless serve`" in connect.error.message
    assert executed_commands(log) == []  # the port was never even opened


def test_not_connected_always_names_the_next_step(app: object, tmp_path: Path) -> None:
    """Defect 6: status and actions on a printer nobody connected say what to do."""
    from workbench_plugins.printing.printers import manager_for

    call = app.registry.call  # type: ignore[attr-defined]
    app.settings.plugins["printing"] = {"printers": [{"address": "/dev/ttyUSB7"}]}  # type: ignore[attr-defined]
    lonely = call("get_printer_status", {"printer": "/dev/ttyUSB7"}, caller="cli")
    assert lonely.ok and lonely.result["state"] == "not connected"
    assert "`workbench --headless serve`" in lonely.result["message"]
    manager_for(app).host_here()
    hosted = call("get_printer_status", {"printer": "/dev/ttyUSB7"}, caller="cli")
    assert hosted.result["state"] == "not connected"
    assert "connect_printer" in hosted.result["message"]
    paused = call("pause_print", {"printer": "/dev/ttyUSB7"}, caller="cli", confirmed=True)
    assert not paused.ok and "connect_printer" in paused.error.message


def test_connect_and_disconnect_without_printing(app: object, tmp_path: Path) -> None:
    """Defect 6: a USB printer can be connected (and disconnected) without starting a print."""
    from workbench_plugins.printing.printers import manager_for

    manager_for(app).host_here()
    call = app.registry.call  # type: ignore[attr-defined]
    log = tmp_path / "executed.log"
    with running_emulator(log) as printer:
        connected = call("connect_printer", {"printer": printer.port}, caller="cli", confirmed=True)
        assert connected.ok, connected.error
        assert connected.result["state"] == "idle" and "Connected" in connected.result["message"]
        listed = call("list_printers", {}, caller="cli")
        assert {"printer": printer.port, "state": "idle"}.items() <= listed.result["printers"][
            0
        ].items()
        gone = call("disconnect_printer", {"printer": printer.port}, caller="cli")
        assert gone.ok and gone.result["state"] == "not connected"
        status = call("get_printer_status", {"printer": printer.port}, caller="cli")
        assert status.result["state"] == "not connected"
    assert "M110 N0" in executed_commands(log)  # it talked to the printer, printed nothing


def test_closing_the_app_disconnects_printers_and_stops_their_loop(
    workbench_home: Path, tmp_path: Path
) -> None:
    from workbench.core.context import AppContext
    from workbench_plugins.printing.printers import manager_for

    app = AppContext.open()
    with running_emulator(tmp_path / "executed.log") as printer:
        manager = manager_for(app)
        manager.host_here()
        manager.submit(manager.serial("connect", printer=printer.port)).result(10)
        assert manager.printers is not None
        host = manager.printers.hosts[printer.port]
        assert host.connected and manager._thread.is_alive() and manager.socket.exists()
        app.close()
        assert not host.connected
        assert not manager._thread.is_alive()
        assert not manager.socket.exists()


@needs_slicer
@pytest.mark.slow
def test_a_sliced_export_finds_its_candidate_without_being_told(app: object, link: object) -> None:
    """Lineage end to end: design candidate -> convert_design_to_stl -> slice_model (PrusaSlicer)
    -> upload_and_print with no candidate_id, which finds the ready candidate itself."""
    import numpy as np

    from workbench_plugins.topopt import candidates, engine

    call = app.registry.call  # type: ignore[attr-defined]
    design = np.zeros((50, 100))
    design[:, :40] = 1.0  # one solid block at volume fraction 0.4: every design check holds
    npy = app.store.folder / "outputs" / "topopt" / "block.npy"  # type: ignore[attr-defined]
    npy.parent.mkdir(parents=True, exist_ok=True)
    np.save(npy, design)
    proposed, _ = candidates.propose_design(
        app.ledger,  # type: ignore[attr-defined]
        problem_type="beams2d",
        config=engine.parse_config("beams2d", {"volfrac": 0.4}),
        seed=0,
        design=design,
        artifact_sha256="0" * 64,
        tool_call_id=call("list_printers", {}, caller="test").call_id,
    )
    exported = call(
        "convert_design_to_stl", {"npy_file_path": str(npy), "scale_z": 2.0}, caller="agent"
    )
    assert exported.ok and exported.result["candidate_id"] == proposed.id, exported.error
    sliced = call(
        "slice_model", {"stl_path": exported.result["stl_path"], "printer": "MK3S"}, caller="agent"
    )
    assert sliced.ok, sliced.error
    [artifact] = app.store.artifacts("gcode")  # type: ignore[attr-defined]
    assert artifact.meta["candidate_id"] == proposed.id
    printed = call(
        "upload_and_print",
        {"printer": link.url, "gcode_path": sliced.result["gcode_path"]},  # type: ignore[attr-defined]
        caller="agent",
        confirmed=True,
    )
    assert printed.ok, printed.error
    assert printed.result["candidate_id"] == proposed.id and printed.result["ready"] is True
    assert not printed.result["overridden"]


def test_list_printers_shows_what_each_printer_reports(app: object, link: object) -> None:
    """Defect 9: each profile's real state (PrusaLink asked with a short timeout; a USB printer
    from the printer host, or "not connected") instead of "unknown"."""
    from workbench_plugins.printing.tools.status import LIST_TIMEOUT_S

    closed = "http://127.0.0.1:9"  # nothing listens there
    set_secret(prusalink_secret_key(closed, "api_key"), "any")
    app.settings.plugins["printing"] = {  # type: ignore[attr-defined]
        "printers": [
            {"name": "mk3", "address": link.url},  # type: ignore[attr-defined]
            {"name": "off", "address": closed},
            {"name": "nokey", "address": "http://127.0.0.1:8"},
            {"name": "usb", "address": "/dev/ttyUSB5"},
        ]
    }
    started = time.monotonic()
    listed = app.registry.call("list_printers", {}, caller="cli")  # type: ignore[attr-defined]
    took = time.monotonic() - started
    assert listed.ok, listed.error
    states = {entry["printer"]: entry["state"] for entry in listed.result["printers"]}
    assert states["mk3"] == "idle"
    assert states["off"].startswith("unreachable: ")
    assert states["nokey"] == "no key"
    assert states["usb"] == "not connected"
    assert "`workbench --headless serve`" in listed.result["message"]
    print(f"list_printers with an unreachable PrusaLink: {took:.2f} s (limit {LIST_TIMEOUT_S} s)")
    status = app.registry.call("get_printer_status", {"printer": "mk3"}, caller="cli")  # type: ignore[attr-defined]
    assert status.ok and status.result["address"] == link.url  # type: ignore[attr-defined]
