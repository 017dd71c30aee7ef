"""doctor reaches every configured printer: the Marlin emulator on a pty (M115 handshake) and the
PrusaLink rig (/api/version and /api/v1/status with the key from the keyring, in the printer's
own auth mode), and says what failed when it fails."""

from __future__ import annotations

import asyncio
import os
import socket
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.rigs.marlin_emulator import running_emulator
from tests.rigs.prusalink_server import running_prusalink
from workbench.core import secrets
from workbench.core.doctor import CheckResult, run_checks
from workbench_plugins.printing import doctor_checks as checks
from workbench_plugins.printing.config import PrinterProfile, prusalink_secret_key
from workbench_plugins.printing.usb.serial_host import SerialHost

KEY = "secret-key"  # the rig's API key


@pytest.fixture(autouse=True)
def short_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks, "SERIAL_TIMEOUT_S", 1.0)
    monkeypatch.setattr(checks, "HTTP_TIMEOUT_S", 0.5)


def printer_line(context: Any, printer: str) -> CheckResult:
    context.settings.printers = [printer]
    [line] = checks.check_printers(context)
    assert line.name == f"printer {printer}"
    return line


@pytest.fixture
def silent_port() -> Iterator[str]:
    """A serial port that opens but where nothing ever answers."""
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        yield os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


def test_serial_printer_answering_m115_is_ok(context: Any, tmp_path: Path) -> None:
    with running_emulator(tmp_path / "log") as printer:
        line = printer_line(context, printer.port)
        # and doctor itself shows that line, not a blanket "printers: ok"
        results = run_checks(context)
    assert line.level == "ok", line.line()
    assert "FIRMWARE_NAME:Prusa-Firmware" in line.detail
    assert [r.level for r in results if r.name == f"printer {printer.port}"] == ["ok"]
    assert not [r for r in results if r.name == "printers"]


def test_serial_port_that_does_not_answer_fails_saying_so(context: Any, silent_port: str) -> None:
    line = printer_line(context, silent_port)
    assert line.level == "fail"
    assert "nothing answered M115 within 1 s" in line.detail and "serial_baudrate" in line.fix


def test_missing_serial_port_fails_saying_it_cannot_open(context: Any, tmp_path: Path) -> None:
    line = printer_line(context, str(tmp_path / "ttyACM7"))
    assert line.level == "fail" and "cannot open" in line.detail


def test_port_held_by_a_running_host_is_left_alone(context: Any, tmp_path: Path) -> None:
    with running_emulator(tmp_path / "log") as printer:

        async def hold_and_check() -> CheckResult:
            host = SerialHost(printer.port, boot_timeout_s=1)
            await host.connect()
            try:
                return await asyncio.to_thread(printer_line, context, printer.port)
            finally:
                await host.disconnect()

        line = asyncio.run(hold_and_check())
    assert line.level == "warn" and "in use by another program" in line.detail


def test_prusalink_with_the_right_key_is_ok(context: Any) -> None:
    with running_prusalink() as server:
        secrets.set_secret(prusalink_secret_key(server.url, "api_key"), KEY)
        line = printer_line(context, server.url)
        assert ("GET", "/api/version") in server.printer.requests
        assert ("GET", "/api/v1/status") in server.printer.requests
    assert line.level == "ok", line.line()
    assert "PrusaLink (test rig)" in line.detail and KEY not in line.line()
    assert "key accepted (/api/v1/status: idle)" in line.detail


def test_prusalink_with_a_wrong_key_fails_as_bad_key(context: Any) -> None:
    """PrusaLink 0.8.1 refuses a wrong X-Api-Key with 403 "Bad X-Api-Key." (issue 13, defect 8)."""
    with running_prusalink() as server:
        entry = prusalink_secret_key(server.url, "api_key")
        secrets.set_secret(entry, "not-the-key")
        line = printer_line(context, server.url)
    assert line.level == "fail" and line.detail.startswith("bad key") and "HTTP 403" in line.detail
    assert f"service 'workbench', entry '{entry}'" in line.detail
    assert entry in line.fix and "Printers... dialog" in line.fix
    assert "not-the-key" not in line.line()


def test_a_wrong_key_is_caught_where_version_needs_none(context: Any) -> None:
    """ "ok" means the key works: /api/version alone proves nothing where it is open."""
    with running_prusalink(open_version=True) as server:
        secrets.set_secret(prusalink_secret_key(server.url, "api_key"), "not-the-key")
        line = printer_line(context, server.url)
    assert line.level == "fail" and line.detail.startswith("bad key"), line.line()


@pytest.mark.parametrize(("password", "level"), [("secret-pass", "ok"), ("wrong-pass", "fail")])
def test_a_digest_printer_is_checked_in_its_own_auth_mode(password: str, level: str) -> None:
    with running_prusalink(user="alice") as server:
        profile = PrinterProfile(name="mk4", address=server.url, auth="digest", user="alice")
        secrets.set_secret(profile.secret_key, password)
        line = checks.check_prusalink(profile)
        assert server.printer.challenges >= 1  # asked for digest: no X-Api-Key was sent
    assert line.level == level and line.name == "printer mk4", line.line()
    if level == "ok":
        assert "digest user 'alice' accepted" in line.detail
    else:
        assert "HTTP 401" in line.detail and profile.secret_key in line.fix


def test_prusalink_without_a_key_names_the_keyring_entry(context: Any) -> None:
    with running_prusalink() as server:
        line = printer_line(context, server.url)
        assert server.printer.requests == []  # nothing sent without a key
    entry = prusalink_secret_key(server.url, "api_key")
    assert line.level == "fail" and "no key in the keyring" in line.detail
    assert "service 'workbench'" in line.detail and entry in line.detail and entry in line.fix


def test_prusalink_with_nothing_listening_fails_as_refused(context: Any) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}"
    secrets.set_secret(prusalink_secret_key(url, "api_key"), KEY)
    line = printer_line(context, url)
    assert line.level == "fail" and line.detail.startswith("connection refused")


def test_prusalink_that_does_not_answer_in_time_fails_as_timeout(context: Any) -> None:
    with running_prusalink() as server:
        secrets.set_secret(prusalink_secret_key(server.url, "api_key"), KEY)
        server.printer.stall_next[:] = [2.0]
        line = printer_line(context, server.url)
    assert line.level == "fail" and line.detail.startswith("timeout")


def test_prusalink_without_its_printer_says_so(context: Any) -> None:
    """PrusaLink answers 503 until it has found the printer on its serial port."""
    with running_prusalink() as server:
        secrets.set_secret(prusalink_secret_key(server.url, "api_key"), KEY)
        server.printer.fail_next[:] = [503]
        line = printer_line(context, server.url)
    assert line.level == "fail" and "has no printer yet" in line.detail, line.line()
