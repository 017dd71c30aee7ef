"""Acceptance 2 and 3: streaming to the emulator with checksum errors; unplug and resume."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.rigs.marlin_emulator import executed_commands, running_emulator
from workbench_plugins.printing.slicing.gcode_meta import gcode_commands
from workbench_plugins.printing.usb.print_job import HostState
from workbench_plugins.printing.usb.serial_host import ResumePlan, ResumeRefused, SerialHost
from workbench_plugins.printing.usb.serial_port import SerialHostError

PRELUDE = {"M110 N0", "M115", "M155 S2"}


def file_part(executed: list[str]) -> list[str]:
    """The executed commands without the host's own link set-up (renumbering, auto-report)."""
    return [command for command in executed if command not in PRELUDE]


@pytest.mark.slow
@pytest.mark.parametrize("window", [1, 3])
def test_stream_with_checksum_errors_runs_every_line_once_in_order(
    sliced_cube: Path, tmp_path: Path, window: int
) -> None:
    log = tmp_path / "executed.log"
    expected = gcode_commands(sliced_cube)
    with running_emulator(log, checksum_error_rate=0.01, seed=window) as printer:

        async def stream() -> SerialHost:
            host = SerialHost(printer.port, window=window, boot_timeout_s=2)
            await host.connect()
            await host.start_print(sliced_cube)
            await host.wait_idle(240)
            return host

        host = asyncio.run(stream())
        assert host.state is HostState.FINISHED and host.job is not None and host.job.done
        assert host.snapshot().file == sliced_cube.name  # a finished print says so, and what
        injected = printer.errors_injected
    assert injected > len(expected) * 0.005  # the 1% really happened
    assert host.resends >= injected
    assert file_part(executed_commands(log)) == expected


def test_unplug_then_a_restarted_printer_resumes_only_from_a_layer(
    short_gcode: Path, tmp_path: Path
) -> None:
    """The second emulator is a fresh printer (it says `start`): Z is unknown, plain resume is
    refused with a "resume from layer N" plan, and resume_from_layer carries it out."""
    expected = gcode_commands(short_gcode)
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    events: list[tuple[str, str]] = []
    plans: list[ResumePlan] = []

    async def scenario() -> tuple[SerialHost, int]:
        with running_emulator(first_log, unplug_at_line=700) as printer:
            host = SerialHost(
                printer.port,
                boot_timeout_s=2,
                listener=lambda kind, snap: events.append((kind, snap.message)),
            )
            await host.connect()
            await host.start_print(short_gcode)
            await host.wait_idle(60)  # returns when the link drops
            assert printer.unplugged
        assert host.state is HostState.DISCONNECTED
        kept = host.job.confirmed  # type: ignore[union-attr]
        with pytest.raises(SerialHostError, match="not connected"):
            host.send_command("M105")
        with pytest.raises(SerialHostError, match="not connected"):
            await host.resume()
        with running_emulator(second_log) as printer:  # plugged in again (new pty)
            host.port = printer.port
            await host.connect()
            assert host.state is HostState.PAUSED  # the user decides
            with pytest.raises(ResumeRefused, match="restarted") as refused:
                await host.resume()
            plan = refused.value.plan
            assert plan is not None and plan.layer == host.job.layer  # type: ignore[union-attr]
            assert host.snapshot().to_dict()["resume"]["layer"] == plan.layer
            plans.append(plan)
            outcome = await host.resume_from_layer(plan.layer)  # type: ignore[arg-type]
            assert outcome.confirmed, outcome
            await host.wait_idle(60)
        return host, kept

    host, kept = asyncio.run(scenario())
    assert any(kind == "disconnect" and "went away" in message for kind, message in events)
    first = file_part(executed_commands(first_log))
    assert len(first) == kept  # the position is exactly what ran before the unplug
    assert first == expected[:kept]
    plan = plans[0]
    assert plan.line <= kept
    assert file_part(executed_commands(second_log)) == plan.commands + expected[plan.line :]
    assert host.job is not None and host.job.done


def test_unplug_then_abort_sends_nothing_of_the_file(short_gcode: Path, tmp_path: Path) -> None:
    second_log = tmp_path / "second.log"

    async def scenario() -> None:
        with running_emulator(tmp_path / "first.log", unplug_at_line=100) as printer:
            host = SerialHost(printer.port, boot_timeout_s=2)
            await host.connect()
            await host.start_print(short_gcode)
            await host.wait_idle(30)
        with running_emulator(second_log) as printer:
            host.port = printer.port
            await host.connect()
            outcome = await host.abort()
            assert outcome.confirmed and "heaters and fan off" in outcome.message
        assert host.job is None and host.state is HostState.IDLE

    asyncio.run(scenario())
    assert file_part(executed_commands(second_log)) == ["M104 S0", "M140 S0", "M107", "M84"]


def test_busy_temperatures_pause_resume_and_emergency_stop(tmp_path: Path) -> None:
    gcode = tmp_path / "moves.gcode"
    gcode.write_text("M104 S215\nM140 S60\n" + "".join(f"G1 X{i} F3000\n" for i in range(40)))
    log = tmp_path / "executed.log"
    rx: list[str] = []

    async def scenario(printer: object) -> SerialHost:
        host = SerialHost(
            printer.port,  # type: ignore[attr-defined]
            boot_timeout_s=2,
            autoreport_s=1,
            listener=lambda kind, snap: rx.append(snap.message) if kind == "rx" else None,
        )
        await host.connect()
        await host.start_print(gcode)
        await asyncio.sleep(0.4)
        outcome = await host.pause()
        assert outcome.confirmed and outcome.state == "paused", outcome
        paused_at = len(executed_commands(log))
        assert executed_commands(log)[-1] == "M601"  # the emulator says Prusa-Firmware
        await asyncio.sleep(0.3)
        assert len(executed_commands(log)) == paused_at
        outcome = await host.resume()
        assert outcome.confirmed and outcome.state == "printing", outcome
        await asyncio.sleep(0.3)
        assert len(executed_commands(log)) > paused_at
        host.emergency_stop()
        await asyncio.sleep(0.3)
        return host

    with running_emulator(log, command_delay_s=0.12, busy_interval_s=0.05) as printer:
        host = asyncio.run(scenario(printer))
        assert printer.killed
    assert host.state is HostState.HALTED
    assert any("busy" in line for line in rx)
    assert host.temperatures["nozzle"][1] == 215.0 and host.temperatures["bed"][1] == 60.0
    executed = executed_commands(log)
    assert executed[-1] == "M112"  # it overtook the queued moves
    assert len(file_part(executed)) < 42


def test_missing_port_gives_a_clear_error(tmp_path: Path) -> None:
    host = SerialHost(str(tmp_path / "ttyACM9"))
    with pytest.raises(SerialHostError, match="Cannot open the printer port"):
        asyncio.run(host.connect())


def test_endless_line_is_capped_and_the_link_closed_saying_why() -> None:
    import os
    import tty

    from workbench_plugins.printing.usb.serial_port import MAX_LINE_BYTES

    master, slave = os.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)

    async def scenario() -> SerialHost:
        host = SerialHost(port, boot_timeout_s=0.1)
        await host.connect()
        chunk = b"\x55" * 4096  # what a wrong baud rate looks like: bytes, never a newline
        for _ in range(MAX_LINE_BYTES // len(chunk) + 2):
            os.write(master, chunk)
            await asyncio.sleep(0.005)  # let the host read: the pty buffer is small
            if not host.connected:
                break
        return host

    try:
        host = asyncio.run(scenario())
    finally:
        os.close(master)
        os.close(slave)
    assert host.state is HostState.DISCONNECTED
    assert "64 KiB without a line end" in host.message and "serial_baudrate" in host.message
    assert len(host._rx) == 0  # the partial line was dropped, not kept
