"""Defect 9 (serial part): while the host holds a port, another process cannot open it.

Two locks: pyserial's flock (respected by programs that ask for it, like the doctor's handshake)
and the tty's exclusive mode TIOCEXCL (the kernel refuses any other open, whatever the program;
root is exempt, so as root the second process drops to `nobody` first).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench_plugins.printing.usb.serial_host import SerialHost
from workbench_plugins.printing.usb.serial_port import SerialHostError

NOBODY = 65534
PLAIN_OPEN = textwrap.dedent(
    """
    import os, sys
    if os.geteuid() == 0:
        os.setgid({uid}); os.setuid({uid})
    try:
        fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as error:
        print("refused:", error.strerror)
    else:
        print("opened")
    """
).format(uid=NOBODY)
HANDSHAKE = textwrap.dedent(
    """
    import sys
    from workbench_plugins.printing.usb.serial_port import SerialHostError, firmware_handshake
    try:
        firmware_handshake(sys.argv[1], timeout_s=0.5)
    except SerialHostError as error:
        print(type(error).__name__, error)
    """
)
CONNECT = textwrap.dedent(
    """
    import asyncio, sys
    from workbench_plugins.printing.usb.serial_host import SerialHost
    from workbench_plugins.printing.usb.serial_port import SerialHostError
    try:
        asyncio.run(SerialHost(sys.argv[1], boot_timeout_s=0.1).connect())
    except SerialHostError as error:
        print(error)
    """
)


@pytest.fixture
def pty_port() -> Iterator[str]:
    """A bare pseudo-terminal; anyone may open its slave (so only the locks stand in the way)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    os.chmod(port, 0o666)
    yield port
    os.close(master)
    os.close(slave)


def run_beside(code: str, port: str) -> str:
    """Run `code` in another process against `port`; its output."""
    done = subprocess.run(
        [sys.executable, "-c", code, port], capture_output=True, text=True, timeout=60
    )
    return (done.stdout + done.stderr).strip()


def while_held(port: str, code: str) -> str:
    async def scenario() -> str:
        host = SerialHost(port, boot_timeout_s=0.1)
        await host.connect()
        try:
            return await asyncio.to_thread(run_beside, code, port)
        finally:
            await host.disconnect()

    return asyncio.run(scenario())


def test_a_program_ignoring_flock_cannot_open_a_held_port(pty_port: str) -> None:
    assert run_beside(PLAIN_OPEN, pty_port) == "opened"  # the port itself is open to all
    assert while_held(pty_port, PLAIN_OPEN) == "refused: Device or resource busy"
    assert run_beside(PLAIN_OPEN, pty_port) == "opened"  # and is again once released


def test_the_doctor_in_another_process_is_told_the_port_is_in_use(pty_port: str) -> None:
    answer = while_held(pty_port, HANDSHAKE)
    assert answer.startswith("PortBusy") and "in use by another program" in answer


def test_a_second_host_is_told_the_port_is_in_use_and_what_to_do(pty_port: str) -> None:
    answer = while_held(pty_port, CONNECT)
    assert "in use by another program" in answer and "close that program first" in answer


def test_a_missing_port_is_not_called_in_use(tmp_path: Path) -> None:
    host = SerialHost(str(tmp_path / "ttyACM9"))
    with pytest.raises(SerialHostError, match="Cannot open") as failed:
        asyncio.run(host.connect())
    assert "in use" not in str(failed.value)
