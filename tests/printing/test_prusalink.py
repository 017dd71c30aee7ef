"""Acceptance 4: PrusaLink upload + print, pause, resume, stop, status; both auth modes;
wrong key; 5xx and timeouts retried, then reported."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.rigs.prusalink_server import running_prusalink
from workbench_plugins.printing.prusalink import (
    PrusaLinkAuthError,
    PrusaLinkClient,
    PrusaLinkError,
    RetryPolicy,
)

FAST = RetryPolicy(attempts=3, base_delay_s=0.05)


@pytest.fixture
def gcode(tmp_path: Path) -> Path:
    path = tmp_path / "part.gcode"
    path.write_text("".join(f"G1 X{i % 200} Y{i % 180}\n" for i in range(30000)))
    return path


@pytest.mark.parametrize(("auth", "secret"), [("api_key", "secret-key"), ("digest", "secret-pass")])
def test_upload_print_pause_resume_stop(auth: str, secret: str, gcode: Path) -> None:
    seen: list[tuple[int, int]] = []

    async def scenario(url: str) -> None:
        async with PrusaLinkClient(url, secret, auth=auth, retry=FAST) as client:  # type: ignore[arg-type]
            assert (await client.version())["api"].startswith("2.")
            assert (await client.storage())[0]["name"] == "usb"
            assert await client.job() is None
            remote = await client.upload(
                gcode, print_after=True, progress=lambda sent, total: seen.append((sent, total))
            )
            assert remote == "/api/v1/files/usb/part.gcode"
            status = await client.status()
            assert status["printer"]["state"] == "PRINTING"
            assert status["printer"]["target_nozzle"] == 215.0
            await client.pause()
            assert (await client.job())["state"] == "PAUSED"  # type: ignore[index]
            await client.resume()
            assert (await client.status())["printer"]["state"] == "PRINTING"
            await client.stop()
            assert (await client.status())["printer"]["state"] == "STOPPED"
            await client.start(remote)  # a file already on the printer
            assert (await client.status())["printer"]["state"] == "PRINTING"

    with running_prusalink(auth=auth) as server:
        asyncio.run(scenario(server.url))
        assert server.printer.files["/usb/part.gcode"] == gcode.read_bytes()
    assert seen[-1] == (gcode.stat().st_size, gcode.stat().st_size) and len(seen) > 3


@pytest.mark.parametrize("auth", ["api_key", "digest"])
def test_wrong_secret_is_a_clear_error(auth: str) -> None:
    async def scenario(url: str) -> None:
        async with PrusaLinkClient(url, "wrong", auth=auth, retry=FAST) as client:  # type: ignore[arg-type]
            await client.status()

    with running_prusalink(auth=auth) as server, pytest.raises(PrusaLinkAuthError) as error:
        asyncio.run(scenario(server.url))
    assert "HTTP 401" in str(error.value) and "keyring" in str(error.value)
    assert "wrong" not in str(error.value)  # the secret never shows up in messages


def test_5xx_and_timeouts_are_retried_then_succeed() -> None:
    async def scenario(url: str) -> dict:
        async with PrusaLinkClient(url, "secret-key", timeout_s=0.3, retry=FAST) as client:
            return await client.status()

    with running_prusalink() as server:
        server.printer.fail_next[:] = [503]
        server.printer.stall_next[:] = [0.0, 1.0]  # the second request times out
        assert asyncio.run(scenario(server.url))["printer"]["state"] == "IDLE"
        assert len([r for r in server.printer.requests if r[1] == "/api/v1/status"]) == 3


def test_persistent_5xx_is_reported_after_retries() -> None:
    async def scenario(url: str) -> None:
        async with PrusaLinkClient(url, "secret-key", retry=FAST) as client:
            await client.status()

    with running_prusalink() as server:
        server.printer.fail_next[:] = [502] * 10
        with pytest.raises(PrusaLinkError, match=r"after 3 attempts \(last: HTTP 502\)"):
            asyncio.run(scenario(server.url))
        assert len(server.printer.requests) == 3


def test_failed_upload_leaves_nothing_to_print(gcode: Path) -> None:
    async def scenario(url: str) -> None:
        async with PrusaLinkClient(url, "secret-key", retry=FAST) as client:
            await client.upload(gcode, print_after=True)

    with running_prusalink() as server:
        server.printer.fail_next[:] = [500] * 3
        with pytest.raises(PrusaLinkError):
            asyncio.run(scenario(server.url))
        assert server.printer.files == {} and server.printer.state == "IDLE"


def test_a_huge_answer_is_refused_without_reading_it_whole() -> None:
    from workbench_plugins.printing.prusalink import MAX_RESPONSE_BYTES

    async def scenario(url: str) -> None:
        async with PrusaLinkClient(url, "secret-key", retry=FAST) as client:
            await client.version()

    huge = 64 * MAX_RESPONSE_BYTES
    with running_prusalink() as server:
        server.printer.huge_next[:] = [huge]
        with pytest.raises(PrusaLinkError, match=r"more than 1024 KiB.*stopped reading"):
            asyncio.run(scenario(server.url))
        assert len(server.printer.requests) == 1  # refused, not retried
    # the server could not send it all: the client closed the connection early
    assert server.printer.huge_sent < huge
