"""PrusaLink HTTP API v1 client (httpx, asyncio): status, job, storage, upload, start/pause/stop.

Auth is either `X-Api-Key` (PrusaLink on a Raspberry Pi, MK3 family) or HTTP digest (printer
firmware on MINI/MK4/XL); the secret comes from the keyring through the caller and is never logged.
A refused key (401, or 403 "Bad X-Api-Key") names the keyring entry and where to enter it.
Timeouts, connection drops and 5xx answers are retried with exponential backoff, then reported.
Uploads go to the storage the printer reports (PrusaLink 0.8.1 has only `local`, MK4 firmware
`usb`). With digest, an upload first makes a cheap GET so httpx holds the challenge before the
streamed body goes out, and a challenge met anyway (a stale nonce) is answered with a fresh body.
An upload that fails part way is deleted again, so nothing half-uploaded can be printed.
Answers are streamed and refused beyond MAX_RESPONSE_BYTES: every answer of this API is a small
JSON document, so a larger one is a wrong address or a broken server, not something to hold in
memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import httpx

from workbench.core.secrets import SERVICE
from workbench_plugins.printing.config import prusalink_secret_key

log = logging.getLogger(__name__)
CHUNK = 64 * 1024
MAX_RESPONSE_BYTES = 1024 * 1024
Progress = Callable[[int, int], None]
Cause = Literal["timeout", "refused", "unreachable", "server"]


class PrusaLinkError(Exception):
    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status that was refused, if an answer came


class PrusaLinkAuthError(PrusaLinkError):
    """The printer refused the key or password (401, or 403 "Bad X-Api-Key")."""


class PrusaLinkUnreachable(PrusaLinkError):
    """No usable answer after every attempt; `cause` says why the last attempt failed."""

    def __init__(self, message: str, *, cause: Cause, last: str) -> None:
        super().__init__(message)
        self.cause = cause
        self.last = last  # what the last attempt met, e.g. "no answer within 3.0 s"


@dataclass(frozen=True)
class Reply:
    """A whole (bounded) answer: the parts of httpx.Response this client uses."""

    status_code: int
    content: bytes

    def json(self) -> Any:
        return json.loads(self.content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


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
        storage: str = "",
        timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.auth_mode = auth
        self.user = user
        self.storage_choice = storage  # the profile's storage; "" = the one the printer reports
        self.secret_entry = prusalink_secret_key(self.url, auth)
        self.retry = retry or RetryPolicy()
        # without Accept, PrusaLink words its errors as an HTML page
        headers = {"Accept": "application/json"}
        if auth == "api_key":
            headers["X-Api-Key"] = secret
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
    ) -> Reply:
        last = ""
        cause: Cause = "server"
        for attempt in range(self.retry.attempts):
            if attempt:
                await asyncio.sleep(self.retry.delay(attempt - 1))
            send = dict(kwargs)
            if callable(send.get("content")):  # a streamed body is made afresh for each attempt
                if self.auth_mode == "digest":
                    await self._authenticate()
                send["content"] = send["content"]()
            try:
                async with self._client.stream(method, path, **send) as response:
                    reply = Reply(response.status_code, await self._bounded(response, path))
            except httpx.StreamError:
                # digest: the challenge came after the streamed body was spent (a stale nonce);
                # httpx now holds the new challenge, so the next attempt sends a fresh body
                last, cause = "the digest challenge came after the upload had started", "server"
                continue
            except httpx.TimeoutException:
                last, cause = f"no answer within {self._client.timeout.read} s", "timeout"
                continue
            except httpx.TransportError as error:
                refused = _caused_by(error, ConnectionRefusedError)
                last = f"connection failed ({type(error).__name__}: {error})"
                if refused:
                    last = f"connection refused ({refused})"
                cause = "refused" if refused else "unreachable"
                continue
            if reply.status_code == 401 or (
                reply.status_code == 403 and self.auth_mode == "api_key"
            ):
                # PrusaLink refuses a wrong X-Api-Key with 403 "Bad X-Api-Key.", not 401
                raise PrusaLinkAuthError(
                    self._auth_message(reply.status_code, _detail(reply)), status=reply.status_code
                )
            if reply.status_code >= 500:
                last, cause = f"HTTP {reply.status_code}", "server"
                continue
            if reply.status_code not in ok:
                raise PrusaLinkError(
                    f"PrusaLink at {self.url} refused {method} {path}: HTTP "
                    f"{reply.status_code} {_detail(reply)}",
                    status=reply.status_code,
                )
            return reply
        raise PrusaLinkUnreachable(
            f"PrusaLink at {self.url} did not complete {method} {path} after "
            f"{self.retry.attempts} attempts (last: {last}). Check that the printer is on and "
            "reachable, then try again.",
            cause=cause,
            last=last,
        )

    async def _authenticate(self) -> None:
        """A cheap GET, so httpx holds a fresh digest challenge before a streamed body goes out
        (a body sent before the challenge cannot be sent again). Its failures are the PUT's to
        report, so they are ignored here."""
        with contextlib.suppress(httpx.HTTPError, PrusaLinkError):
            async with self._client.stream("GET", "/api/v1/storage") as response:
                await self._bounded(response, "/api/v1/storage")

    async def _bounded(self, response: httpx.Response, path: str) -> bytes:
        """The body, read in chunks and refused past MAX_RESPONSE_BYTES (not retried)."""
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_RESPONSE_BYTES:
                raise PrusaLinkError(
                    f"PrusaLink at {self.url} answered {path} with more than "
                    f"{MAX_RESPONSE_BYTES // 1024} KiB, far more than any PrusaLink answer; "
                    "stopped reading. Check that the address is the printer's PrusaLink."
                )
        return bytes(body)

    def _auth_message(self, status: int, detail: str) -> str:
        if self.auth_mode == "api_key":
            what, where = "the API key", "The key"
        else:
            what, where = f"the digest user '{self.user}' or its password", "The password"
        entry = self.secret_entry
        said = f": {detail}" if detail and status == 403 else ""
        return (
            f"PrusaLink at {self.url} refused {what} (HTTP {status}{said}). {where} is in the "
            f"keyring, service '{SERVICE}', entry '{entry}': enter the right one in the Printer "
            f"panel's Printers... dialog, or `keyring set {SERVICE} '{entry}'`. If the auth mode "
            "is wrong, change it there: MINI/MK4/XL firmware wants HTTP digest, PrusaLink on a "
            "Raspberry Pi takes the API key."
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

    async def upload_storage(self, wanted: str = "") -> str:
        """The storage to upload to: `wanted` (else the client's profile choice) if the printer
        has it writable, else the first available, writable one it reports."""
        wanted = (wanted or self.storage_choice).strip("/")
        listed = await self.storage()
        writable = [_storage_name(s) for s in listed if _writable(s) and _storage_name(s)]
        if wanted and wanted in writable:
            return wanted
        reported = ", ".join(
            f"{_storage_name(s) or '?'}{'' if _writable(s) else ' (not writable)'}" for s in listed
        )
        if wanted:
            raise PrusaLinkError(
                f"PrusaLink at {self.url} has no writable storage '{wanted}' (it reports: "
                f"{reported or 'none'}). Change the printer's storage in the Printer panel's "
                "Printers... dialog, or leave it empty to use the one the printer reports."
            )
        if not writable:
            raise PrusaLinkError(
                f"PrusaLink at {self.url} reports no writable storage to upload to "
                f"({reported or 'none listed'}). Check the printer's USB stick or disk."
            )
        return writable[0]

    # -- actions ------------------------------------------------------------------------------
    async def upload(
        self,
        path: Path,
        *,
        storage: str = "",
        name: str | None = None,
        print_after: bool = False,
        progress: Progress | None = None,
    ) -> str:
        """PUT the file to `storage` ("" = `upload_storage()`); returns its remote path.
        A failed upload is removed again."""
        storage = storage or await self.upload_storage()
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
                async with self._client.stream("DELETE", remote):
                    pass  # its answer does not matter: not read
            raise
        return remote

    async def start(self, remote: str) -> None:
        # right after an upload a file may not be startable yet: 404 is retried briefly
        for attempt in range(self.retry.attempts):
            try:
                await self._request("POST", remote, ok=(200, 201, 204))
                return
            except PrusaLinkError as error:
                if error.status != 404 or attempt == self.retry.attempts - 1:
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


def _caused_by(error: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The `kind` exception in the chain below `error` (httpx hides errno behind its own)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _detail(response: Reply) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:200]
    if not isinstance(body, dict):
        return str(body)[:200]
    return str(body.get("message") or body.get("text") or body.get("title") or body)[:200]


def _storage_name(storage: dict[str, Any]) -> str:
    """The name a file URL uses: the path (PrusaLink's `name` is a display name there)."""
    return str(storage.get("path") or storage.get("name") or "").strip("/")


def _writable(storage: dict[str, Any]) -> bool:
    return bool(storage.get("available", True)) and not storage.get("read_only", False)
