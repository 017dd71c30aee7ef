"""The PrusaLink client and control against the project's fake PrusaLink (tests/rigs/
prusalink_server.py, which copies what the real 0.8.1 does; test_real_prusalink.py runs the real
one): upload to the storage the printer reports, digest uploads, keys refused with 401 and 403,
confirmed actions, status with the file and a finished print, retries and bounded answers."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.rigs.prusalink_server import PrusaLinkServer, running_prusalink
from workbench.core import secrets
from workbench_plugins.printing.config import PrinterProfile, PrintingSettings
from workbench_plugins.printing.outcomes import ActionOutcome, PrinterStatus
from workbench_plugins.printing.prusalink.access import prusalink_client
from workbench_plugins.printing.prusalink.client import (
    PrusaLinkAuthError,
    PrusaLinkClient,
    PrusaLinkError,
    RetryPolicy,
)
from workbench_plugins.printing.prusalink.control import (
    prusalink_action,
    prusalink_print,
    prusalink_status,
)

FAST = RetryPolicy(attempts=3, base_delay_s=0.05)
SECRETS = {"api_key": "secret-key", "digest": "secret-pass"}
T = TypeVar("T")


@pytest.fixture
def gcode(tmp_path: Path) -> Path:
    path = tmp_path / "part.gcode"
    path.write_text("".join(f"G1 X{i % 200} Y{i % 180}\n" for i in range(30000)))
    return path


def client(server: PrusaLinkServer, auth: str = "api_key", secret: str = "") -> PrusaLinkClient:
    return PrusaLinkClient(server.url, secret or SECRETS[auth], auth=auth, retry=FAST)  # type: ignore[arg-type]


def run(server: PrusaLinkServer, auth: str, work: Any, secret: str = "") -> Any:
    """`work(client)` on a fresh client (no digest challenge held yet)."""

    async def scenario() -> Any:
        async with client(server, auth, secret) as link:
            return await work(link)

    return asyncio.run(scenario())


def once(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


@pytest.mark.parametrize("auth", ["api_key", "digest"])
def test_print_pause_resume_cancel_report_the_confirmed_state(auth: str, gcode: Path) -> None:
    """Defects 1, 2 and 7: the upload goes to `local` (the storage the printer reports, as in
    PrusaLink 0.8.1), works with digest, and every action reports the state it led to."""
    seen: list[tuple[int, int]] = []

    async def scenario(link: PrusaLinkClient) -> list[ActionOutcome]:
        printed = await prusalink_print(link, gcode, progress=lambda s, t: seen.append((s, t)))
        return [printed] + [
            await prusalink_action(link, action)  # type: ignore[arg-type]
            for action in ("pause", "resume", "cancel")
        ]

    with running_prusalink() as server:
        outcomes = run(server, auth, scenario)
        assert server.printer.files["/local/part.gcode"] == gcode.read_bytes()
    assert [(o.state, o.confirmed) for o in outcomes] == [
        ("printing", True),
        ("paused", True),
        ("printing", True),
        ("stopped", True),
    ]
    assert "storage 'local'" in outcomes[0].message and "part.gcode" in outcomes[0].message
    assert outcomes[1].message.endswith("it is paused.")
    assert seen[-1] == (gcode.stat().st_size, gcode.stat().st_size) and len(seen) > 3


def test_upload_uses_the_storage_the_printer_reports_or_the_profiles(gcode: Path) -> None:
    """Defect 1: nothing assumes `usb`; a storage the printer lacks is named, not sent."""
    with running_prusalink() as server:
        remote = run(server, "api_key", lambda link: link.upload(gcode))
        assert remote == "/api/v1/files/local/part.gcode"
        with pytest.raises(PrusaLinkError) as refused:
            run(server, "api_key", lambda link: prusalink_print(link, gcode, storage="usb"))
        assert not any(
            method == "PUT" and "/usb/" in path for method, path in server.printer.requests
        )
    assert "no writable storage 'usb'" in str(refused.value)
    assert "local, sdcard (not writable)" in str(refused.value)


def test_storage_from_the_profile_reaches_the_client() -> None:
    profile = PrinterProfile(address="http://mk4.local", auth="digest", user="alice", storage="usb")
    secrets.set_secret(profile.secret_key, "pw")
    link = prusalink_client(profile)
    assert (link.auth_mode, link.user, link.storage_choice) == ("digest", "alice", "usb")
    once(link.aclose())


def test_each_printer_keeps_its_own_auth_mode(gcode: Path) -> None:
    """Defect 8: one auth mode per printer, from its profile, not one for every host."""
    with running_prusalink() as key_host, running_prusalink(user="alice") as digest_host:
        settings = PrintingSettings(
            printers=[
                PrinterProfile(name="mk3", address=key_host.url),
                PrinterProfile(name="mk4", address=digest_host.url, auth="digest", user="alice"),
            ]
        )
        for profile, secret in zip(settings.printers, ["secret-key", "secret-pass"], strict=True):
            secrets.set_secret(profile.secret_key, secret)

        async def status(name: str) -> PrinterStatus:
            async with prusalink_client(settings.profile(name), retry=FAST) as link:
                return await prusalink_status(link, name)

        assert [once(status(name)).state for name in ("mk3", "mk4")] == ["idle", "idle"]
        assert key_host.printer.challenges == 0 and digest_host.printer.challenges == 1


def test_digest_upload_as_the_first_request_is_not_consumed_by_the_challenge(
    gcode: Path,
) -> None:
    """Defect 2: the streamed body used to go out before the challenge: StreamConsumed."""
    with running_prusalink() as server:
        run(server, "digest", lambda link: link.upload(gcode, storage="local"))
        assert server.printer.files["/local/part.gcode"] == gcode.read_bytes()
        puts = [r for r in server.printer.requests if r[0] == "PUT"]
    assert len(puts) == 1  # authenticated by a cheap GET first: the body went out once


def test_digest_challenge_met_by_the_upload_itself_is_answered_with_a_fresh_body(
    gcode: Path,
) -> None:
    """Defect 2: a nonce that goes stale between the GET and the PUT (PrusaLink's last 60 s)."""

    async def two_uploads(link: PrusaLinkClient) -> None:
        await link.upload(gcode, storage="local")
        server.printer.expire_nonces()  # the next request meets a stale nonce
        server.printer.stale_next[:] = ["PUT"]  # ... and so does the PUT after a fresh GET
        await link.upload(gcode, storage="local", name="again.gcode")

    with running_prusalink() as server:
        run(server, "digest", two_uploads)
        assert server.printer.files["/local/again.gcode"] == gcode.read_bytes()
        puts = [path for method, path in server.printer.requests if method == "PUT"]
    assert puts.count("/api/v1/files/local/again.gcode") == 3  # stale, challenged, sent


@pytest.mark.parametrize(
    ("auth", "status", "entry"), [("api_key", 403, "api_key"), ("digest", 401, "password")]
)
def test_a_wrong_key_names_the_keyring_entry_and_where_to_enter_it(
    auth: str, status: int, entry: str
) -> None:
    """Defect 8: PrusaLink refuses a wrong X-Api-Key with 403 "Bad X-Api-Key."; a wrong digest
    password with 401. Both say which secret, where it is kept and where to enter it."""
    with running_prusalink() as server, pytest.raises(PrusaLinkAuthError) as error:
        run(server, auth, lambda link: link.status(), secret="wrong-secret")
    message = str(error.value)
    keyring_entry = f"prusalink:{server.url}:{entry}"
    assert error.value.status == status and f"HTTP {status}" in message
    assert f"service 'workbench', entry '{keyring_entry}'" in message
    assert "Printer panel's Printers... dialog" in message
    assert f"`keyring set workbench '{keyring_entry}'`" in message
    assert ("API key" if auth == "api_key" else "digest user 'maker'") in message
    assert "wrong-secret" not in message  # the secret never shows up in messages


def test_status_names_the_file_and_a_finished_print_reads_finished(gcode: Path) -> None:
    """Defect 9: the state is the printer's, the file comes from the job, finished is finished."""
    with running_prusalink() as server:
        idle = run(server, "api_key", lambda link: prusalink_status(link, "mk3"))
        run(server, "api_key", lambda link: prusalink_print(link, gcode))
        printing = run(server, "api_key", lambda link: prusalink_status(link, "mk3"))
        server.printer.finish()
        finished = run(server, "api_key", lambda link: prusalink_status(link, "mk3"))
    assert (idle.state, idle.file, idle.progress, idle.message) == ("idle", "", None, "idle")
    assert (printing.state, printing.file, printing.progress) == ("printing", "part.gcode", 0.0)
    assert printing.temperatures == {"nozzle": [214.8, 215.0], "bed": [59.9, 60.0]}
    assert printing.message == "printing part.gcode (0 %)" and printing.time_left_s == 1200
    # PrusaLink forgets the job when it ends: no file then, but the state says it all
    assert (finished.state, finished.message, finished.progress) == ("finished", "finished", None)


def test_an_action_the_printer_does_not_confirm_in_time_says_requested(gcode: Path) -> None:
    """Defect 7: never "pause sent; it is now printing"."""
    with running_prusalink(action_delay_s=30.0) as server:
        run(server, "api_key", lambda link: prusalink_print(link, gcode))
        outcome = run(server, "api_key", lambda link: prusalink_action(link, "pause", wait_s=0.5))
    assert outcome == ActionOutcome(
        "printing", "pause requested; the printer still reports printing.", False
    )


def test_a_print_right_after_the_last_one_ended_waits_until_the_printer_takes_it(
    gcode: Path,
) -> None:
    """PrusaLink shows STOPPED / FINISHED for 11 s and refuses a new print meanwhile."""
    with running_prusalink(print_end_s=0.6) as server:
        run(server, "api_key", lambda link: prusalink_print(link, gcode))
        run(server, "api_key", lambda link: prusalink_action(link, "cancel"))
        again = run(server, "api_key", lambda link: prusalink_print(link, gcode))
        assert (again.state, again.confirmed, server.printer.job_id) == ("printing", True, 2)
    with running_prusalink(print_end_s=30.0) as server:
        run(server, "api_key", lambda link: prusalink_print(link, gcode))
        server.printer.finish()
        with pytest.raises(PrusaLinkError, match="still reports its last print as finished"):
            run(server, "api_key", lambda link: prusalink_print(link, gcode, settle_s=0.5))
        puts = [request for request in server.printer.requests if request[0] == "PUT"]
        assert len(puts) == 1  # the second file was not uploaded to be refused


def test_print_while_printing_is_refused_before_uploading(gcode: Path) -> None:
    with running_prusalink() as server:
        run(server, "api_key", lambda link: prusalink_print(link, gcode))
        other = gcode.with_name("other.gcode")
        other.write_text("G28\n")
        with pytest.raises(PrusaLinkError, match=r"is printing part\.gcode; other\.gcode was not"):
            run(server, "api_key", lambda link: prusalink_print(link, other))
        assert list(server.printer.files) == ["/local/part.gcode"]


def test_an_action_without_a_job_says_there_is_nothing_to_do() -> None:
    with running_prusalink() as server, pytest.raises(PrusaLinkError, match="Nothing to pause"):
        run(server, "api_key", lambda link: prusalink_action(link, "pause"))


def test_5xx_and_timeouts_are_retried_then_succeed() -> None:
    async def scenario(url: str) -> dict:
        async with PrusaLinkClient(url, "secret-key", timeout_s=0.3, retry=FAST) as link:
            return await link.status()

    with running_prusalink() as server:
        server.printer.fail_next[:] = [503]
        server.printer.stall_next[:] = [0.0, 1.0]  # the second request times out
        assert asyncio.run(scenario(server.url))["printer"]["state"] == "IDLE"
        assert len([r for r in server.printer.requests if r[1] == "/api/v1/status"]) == 3


def test_persistent_5xx_is_reported_after_retries() -> None:
    with running_prusalink() as server:
        server.printer.fail_next[:] = [502] * 10
        with pytest.raises(PrusaLinkError, match=r"after 3 attempts \(last: HTTP 502\)"):
            run(server, "api_key", lambda link: link.status())
        assert len(server.printer.requests) == 3


def test_failed_upload_leaves_nothing_to_print(gcode: Path) -> None:
    with running_prusalink() as server:
        server.printer.fail_next[:] = [500] * 3
        with pytest.raises(PrusaLinkError):
            run(
                server,
                "api_key",
                lambda link: link.upload(gcode, storage="local", print_after=True),
            )
        assert server.printer.files == {} and server.printer.state == "IDLE"
        assert server.printer.requests[-1] == ("DELETE", "/api/v1/files/local/part.gcode")


def test_a_huge_answer_is_refused_without_reading_it_whole() -> None:
    from workbench_plugins.printing.prusalink.client import MAX_RESPONSE_BYTES

    huge = 64 * MAX_RESPONSE_BYTES
    with running_prusalink() as server:
        server.printer.huge_next[:] = [huge]
        with pytest.raises(PrusaLinkError, match=r"more than 1024 KiB.*stopped reading"):
            run(server, "api_key", lambda link: link.version())
        assert len(server.printer.requests) == 1  # refused, not retried
    # the server could not send it all: the client closed the connection early
    assert server.printer.huge_sent < huge
