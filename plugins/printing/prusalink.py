"""PrusaLink HTTP API v1 client (httpx, asyncio): status, job, storage, upload, start/pause/stop.

Auth is either `X-Api-Key` (PrusaLink on a Raspberry Pi, MK3 family) or HTTP digest (printer
firmware on MINI/MK4/XL); the secret comes from the keyring through the caller and is never logged.
Timeouts, connection drops and 5xx answers are retried with exponential backoff, then reported.
An upload that fails part way is deleted again, so nothing half-uploaded can be printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import httpx

log = logging.getLogger(__name__)
CHUNK = 64 * 1024
Progress = Callable[[int, int], None]


class PrusaLinkError(Exception):
    pass


class PrusaLinkAuthError(PrusaLinkError):
    pass


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0

    def delay(self, attempt: int) -> float:
        return min(self.max_delay_s, self.base_delay_s * 2**attempt)


class PrusaLinkClient:
    def __init__(
        self,
        url: str,
        secret: str,
        *,
        auth: Literal["api_key", "digest"] = "api_key",
        user: str = "maker",
        timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.auth_mode = auth
        self.retry = retry or RetryPolicy()
        headers = {"X-Api-Key": secret} if auth == "api_key" else {}
        self._client = httpx.AsyncClient(
            base_url=self.url,
            headers=headers,
            auth=httpx.DigestAuth(user, secret) if auth == "digest" else None,
            timeout=timeout_s,
            transport=transport,
        )

    async def __aenter__(self) -> PrusaLinkClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    # -- the wire -----------------------------------------------------------------------------
    async def _request(
        self, method: str, path: str, *, ok: tuple[int, ...] = (200, 201, 204), **kwargs: Any
    ) -> httpx.Response:
        last = ""
        for attempt in range(self.retry.attempts):
            if attempt:
                await asyncio.sleep(self.retry.delay(attempt - 1))
            send = dict(kwargs)
            if callable(send.get("content")):  # a streamed body is made afresh for each attempt
                send["content"] = send["content"]()
            try:
                response = await self._client.request(method, path, **send)
            except httpx.TimeoutException:
                last = f"no answer within {self._client.timeout.read} s"
                continue
            except httpx.TransportError as error:
                last = f"connection failed ({type(error).__name__}: {error})"
                continue
            if response.status_code == 401:
                raise PrusaLinkAuthError(self._auth_message())
            if response.status_code >= 500:
                last = f"HTTP {response.status_code}"
                continue
            if response.status_code not in ok:
                raise PrusaLinkError(
                    f"PrusaLink at {self.url} refused {method} {path}: HTTP "
                    f"{response.status_code} {_detail(response)}"
                )
            return response
        raise PrusaLinkError(
            f"PrusaLink at {self.url} did not complete {method} {path} after "
            f"{self.retry.attempts} attempts (last: {last}). Check that the printer is on and "
            "reachable, then try again."
        )

    def _auth_message(self) -> str:
        what = "API key" if self.auth_mode == "api_key" else "digest user name or password"
        return (
            f"PrusaLink at {self.url} refused the {what} (HTTP 401). Store the right one in the "
            "keyring (printing settings), or switch the auth mode: MINI/MK4/XL firmware wants "
            "HTTP digest, PrusaLink on a Raspberry Pi wants the API key."
        )

    # -- reads --------------------------------------------------------------------------------
    async def version(self) -> dict[str, Any]:
        return (await self._request("GET", "/api/version")).json()

    async def status(self) -> dict[str, Any]:
        return (await self._request("GET", "/api/v1/status")).json()

    async def job(self) -> dict[str, Any] | None:
        response = await self._request("GET", "/api/v1/job")
        return None if response.status_code == 204 else response.json()

    async def storage(self) -> list[dict[str, Any]]:
        return (await self._request("GET", "/api/v1/storage")).json().get("storage_list", [])

    # -- actions ------------------------------------------------------------------------------
    async def upload(
        self,
        path: Path,
        *,
        storage: str = "usb",
        name: str | None = None,
        print_after: bool = False,
        progress: Progress | None = None,
    ) -> str:
        """PUT the file; returns its remote path. A failed upload is removed again."""
        remote = f"/api/v1/files/{storage}/{quote(name or path.name)}"
        size = path.stat().st_size

        def body() -> AsyncIterator[bytes]:
            return _chunks(path, size, progress)

        headers = {
            "Content-Type": "text/x.gcode",
            "Content-Length": str(size),
            "Overwrite": "?1",
            "Print-After-Upload": "?1" if print_after else "?0",
        }
        try:
            await self._request("PUT", remote, content=body, headers=headers, ok=(200, 201, 204))
        except PrusaLinkAuthError:
            raise
        except PrusaLinkError:
            # nothing half-uploaded may stay behind to be printed later
            with contextlib.suppress(httpx.HTTPError):
                await self._client.delete(remote)
            raise
        return remote

    async def start(self, remote: str) -> None:
        # right after an upload a file may not be startable yet: 404 is retried briefly
        for attempt in range(self.retry.attempts):
            try:
                await self._request("POST", remote, ok=(200, 201, 204))
                return
            except PrusaLinkError as error:
                if "HTTP 404" not in str(error) or attempt == self.retry.attempts - 1:
                    raise
                await asyncio.sleep(self.retry.delay(attempt))

    async def _job_id(self) -> int:
        job = await self.job()
        if not job:
            raise PrusaLinkError(f"PrusaLink at {self.url} has no print job right now.")
        return int(job["id"])

    async def pause(self) -> None:
        await self._request("PUT", f"/api/v1/job/{await self._job_id()}/pause")

    async def resume(self) -> None:
        await self._request("PUT", f"/api/v1/job/{await self._job_id()}/resume")

    async def stop(self) -> None:
        await self._request("DELETE", f"/api/v1/job/{await self._job_id()}")


async def _chunks(path: Path, size: int, progress: Progress | None) -> AsyncIterator[bytes]:
    sent = 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            sent += len(chunk)
            if progress is not None:
                progress(sent, size)
            yield chunk


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
        return str(body.get("message") or body.get("title") or body)[:200]
    except ValueError:
        return response.text[:200]
