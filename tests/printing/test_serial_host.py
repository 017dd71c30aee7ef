"""Acceptance 2 and 3: streaming to the emulator with checksum errors; unplug and resume."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.rigs.marlin_emulator import executed_commands, running_emulator
from workbench_plugins.printing.gcode_meta import gcode_commands
from workbench_plugins.printing.print_job import HostState
from workbench_plugins.printing.serial_host import SerialHost
from workbench_plugins.printing.serial_port import SerialHostError

PRELUDE = {"M110 N0", "M155 S2"}


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
        assert host.state is HostState.IDLE and host.job is not None and host.job.done
        injected = printer.errors_injected
    assert injected > len(expected) * 0.005  # the 1% really happened
    assert host.resends >= injected
    assert file_part(executed_commands(log)) == expected


def test_unplug_mid_print_keeps_position_then_resume(short_gcode: Path, tmp_path: Path) -> None:
    expected = gcode_commands(short_gcode)
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    events: list[tuple[str, str]] = []

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
            host.resume()
        with running_emulator(second_log) as printer:  # plugged in again (new pty)
            host.port = printer.port
            await host.connect()
            assert host.state is HostState.PAUSED  # the user decides
            host.resume()
            await host.wait_idle(60)
        return host, kept

    host, kept = asyncio.run(scenario())
    assert any(kind == "disconnect" and "went away" in message for kind, message in events)
    first = file_part(executed_commands(first_log))
    assert len(first) == kept  # the position is exactly what ran before the unplug
    assert first == expected[:kept]
    assert file_part(executed_commands(second_log)) == expected[kept:]
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
            host.abort()
            await asyncio.sleep(0.3)
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
        host.pause()
        await asyncio.sleep(0.3)
        paused_at = len(executed_commands(log))
        await asyncio.sleep(0.3)
        assert len(executed_commands(log)) <= paused_at + 1  # at most the line in flight
        host.resume()
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

    from workbench_plugins.printing.serial_port import MAX_LINE_BYTES

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
