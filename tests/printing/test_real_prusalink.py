"""Issue 13, acceptance 1, against the real PrusaLink 0.8.1 (tests/rigs/real_prusalink.py: the pip
package in front of OctoPrint's virtual printer speaking as a Prusa MK3S on a pty): a sliced cube
uploaded and printed with digest and with the API key, to the storage PrusaLink reports; pause,
resume and cancel confirmed by the printer's state; a wrong key names the key and where it is
kept; doctor checks the key for real.

One PrusaLink serves the session (`real_prusalink`, tests/printing/conftest.py: it takes ~10 s to
come up). The tests run in file order: the digest print is cancelled, and the API-key print then
waits until PrusaLink takes a new one (it shows STOPPED for 11 s). A print starts through
`link.start_print`, which survives PrusaLink's own start-print race (tests/rigs/real_prusalink.py:
KNOWN_FAULT) by restarting it once. The keyring is the in-memory one of tests/conftest.py.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.rigs.real_prusalink import RealPrusaLink
from workbench.core import secrets
from workbench_plugins.printing import doctor_checks
from workbench_plugins.printing.config import PrinterProfile
from workbench_plugins.printing.prusalink.access import prusalink_client
from workbench_plugins.printing.prusalink.client import PrusaLinkAuthError
from workbench_plugins.printing.prusalink.control import (
    prusalink_action,
    prusalink_print,
    prusalink_status,
)

pytestmark = pytest.mark.slow  # ~30 s: PrusaLink's start (~10 s) and its 11 s STOPPED hold


@pytest.fixture
def link(real_prusalink: RealPrusaLink) -> RealPrusaLink:
    return real_prusalink


def profile(link: RealPrusaLink, auth: str, secret: str) -> PrinterProfile:
    """A printer profile in `auth` mode with `secret` in the keyring, as a user sets it up."""
    made = PrinterProfile(name=f"mk3-{auth}", address=link.url, auth=auth, user=link.user)  # type: ignore[arg-type]
    secrets.set_secret(made.secret_key, secret)
    return made


def on(printer: PrinterProfile, work: Any) -> Any:
    """`work(client)` on a fresh client of `printer` (no digest challenge held yet)."""

    async def scenario() -> Any:
        async with prusalink_client(printer) as client:
            return await work(client)

    return asyncio.run(scenario())


def wait_until(condition: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {timeout_s} s")
        time.sleep(0.2)


@pytest.mark.parametrize(
    ("auth", "status", "entry"), [("api_key", 403, "api_key"), ("digest", 401, "password")]
)
def test_a_wrong_key_names_the_key_and_where_it_is_stored(
    link: RealPrusaLink, auth: str, status: int, entry: str
) -> None:
    printer = profile(link, auth, "not-the-secret")
    with pytest.raises(PrusaLinkAuthError) as refused:
        on(printer, lambda client: prusalink_status(client, printer.name))
    message = str(refused.value)
    keyring_entry = f"prusalink:{link.url}:{entry}"
    assert refused.value.status == status and f"HTTP {status}" in message
    assert f"service 'workbench', entry '{keyring_entry}'" in message
    assert "Printer panel's Printers... dialog" in message
    assert f"`keyring set workbench '{keyring_entry}'`" in message
    assert "not-the-secret" not in message
    if auth == "api_key":
        assert "refused the API key (HTTP 403: Bad X-Api-Key.)" in message


@pytest.mark.parametrize("auth", ["api_key", "digest"])
def test_doctor_checks_the_key_itself(link: RealPrusaLink, auth: str) -> None:
    right = link.api_key if auth == "api_key" else link.password
    good = doctor_checks.check_prusalink(profile(link, auth, right))
    bad = doctor_checks.check_prusalink(profile(link, auth, "not-the-secret"))
    assert good.level == "ok" and "PrusaLink 0.8.1" in good.detail, good.line()
    assert "accepted (/api/v1/status: " in good.detail
    assert bad.level == "fail" and bad.detail.startswith("bad key"), bad.line()


def test_digest_prints_the_cube_and_pause_resume_cancel_are_confirmed(
    link: RealPrusaLink, sliced_cube: Path
) -> None:
    """Defects 1 and 2 (storage `local`, a digest upload as the first request) and 7."""
    printer = profile(link, "digest", link.password)
    started = link.start_print(lambda: on(printer, lambda c: prusalink_print(c, sliced_cube)))
    assert (started.state, started.confirmed) == ("printing", True), started.message
    assert "storage 'local' (/local/cube.gcode)" in started.message
    stored = link.storage / "PrusaLink gcodes" / "cube.gcode"
    assert stored.read_bytes() == sliced_cube.read_bytes()
    # pause once the printer has heated and homed (it reads no command while it heats)
    wait_until(lambda: "G28 W" in link.printer.received_commands(), 60, "heating and homing")

    async def actions(client: Any) -> list[Any]:
        return [await prusalink_action(client, action) for action in ("pause", "resume", "cancel")]

    outcomes = on(printer, actions)
    assert [(o.state, o.confirmed) for o in outcomes] == [
        ("paused", True),
        ("printing", True),
        ("stopped", True),
    ], [o.message for o in outcomes]
    sent = link.printer.received_commands()
    # the printer got Prusa's pause, resume and stop, in that order (PrusaLink may repeat M603)
    assert sent.index("M601") < sent.index("M602") < sent.index("M603")


def test_api_key_prints_the_cube_and_the_status_tells_what_it_prints(
    link: RealPrusaLink, sliced_cube: Path
) -> None:
    """Defects 1 and 9; the previous print was cancelled a moment ago: this one waits."""
    printer = profile(link, "api_key", link.api_key)
    homed = link.printer.received_commands().count("G28 W")
    started = link.start_print(lambda: on(printer, lambda c: prusalink_print(c, sliced_cube)))
    assert (started.state, started.confirmed) == ("printing", True), started.message
    wait_until(lambda: link.printer.received_commands().count("G28 W") > homed, 60, "heating")
    status = on(printer, lambda client: prusalink_status(client, printer.name))
    assert (status.state, status.file) == ("printing", "cube.gcode")
    assert status.message.startswith("printing cube.gcode")
    assert status.temperatures["nozzle"][1] == 215.0 and status.temperatures["bed"][1] == 60.0
    cancelled = on(printer, lambda client: prusalink_action(client, "cancel"))
    assert cancelled.confirmed and cancelled.state == "stopped"
