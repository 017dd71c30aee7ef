"""Test rig (a fake, for fast unit tests): a PrusaLink-API v1 server of our own on 127.0.0.1
(stdlib http.server, a thread). The real PrusaLink 0.8.1 runs in tests/rigs/real_prusalink.py;
this fake copies the behaviour seen there that the client depends on:

- storage: only `local` is writable (`sdcard` is listed, unavailable); any other storage in a file
  URL answers 404 "Location not found, use local." (issue 13: uploads used to go to `usb`);
- auth as PrusaLink does it, both modes at once: an `X-Api-Key` header is checked (a wrong one is
  403 "Bad X-Api-Key."), without one HTTP digest (MD5-sess, realm "Administrator") is asked for; a
  nonce older than `nonce_lifetime_s` is refused as stale, and a challenge is answered before
  a PUT's body was sent (issue 13: a streamed upload could not be sent again); `stale_next`
  refuses the next N digest requests as stale even with a fresh nonce;
- /api/version needs the key too (`open_version=True` models a server where it does not);
- pause / resume / stop answer 204 at once and the state changes `action_delay_s` later;
- the status has no file name (only /api/v1/job has), `storage` is a list there; `finish()`
  ends the print; the job (and its file name) is gone once the print ended, and FINISHED and
  STOPPED turn IDLE `print_end_s` later, before which no print starts.

Fault injection: `fail_next` answers the next requests with a status code (e.g. 503),
`stall_next` makes them wait (client timeouts), `huge_next` answers 200 with that many bytes,
chunked without a length (bounded reads).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

REALM = "Administrator"
OPAQUE = secrets.token_hex(16)
LOCAL = "local"  # the one writable storage of PrusaLink 0.8.1


@dataclass
class PrinterState:
    api_key: str = "secret-key"
    user: str = "maker"
    password: str = "secret-pass"
    open_version: bool = False
    nonce_lifetime_s: float = 60.0  # PrusaLink's auth_timeout
    stale_next: list[str] = field(default_factory=list)  # methods to refuse as stale, in turn
    action_delay_s: float = 0.2
    print_end_s: float = 11.0  # PrusaLink's PRINT_END_TIMEOUT
    ended_at: float = 0.0
    files: dict[str, bytes] = field(default_factory=dict)  # "/local/name.gcode" -> content
    state: str = "IDLE"  # IDLE, PRINTING, PAUSED, FINISHED, STOPPED
    job_id: int = 0
    job_file: str = ""
    progress: float = 0.0  # percent, as PrusaLink reports it
    fail_next: list[int] = field(default_factory=list)
    stall_next: list[float] = field(default_factory=list)
    huge_next: list[int] = field(default_factory=list)
    huge_sent: int = 0  # bytes of huge bodies written before the client stopped reading
    requests: list[tuple[str, str]] = field(default_factory=list)
    challenges: int = 0  # digest challenges sent (401 with WWW-Authenticate)
    nonces: dict[str, float] = field(default_factory=dict)  # nonce -> when it was issued
    lock: threading.Lock = field(default_factory=threading.Lock)

    def later(self, before: str, after: str) -> None:
        """The printer reaches `after` a moment later, if it is still in `before`."""

        def move() -> None:
            with self.lock:
                if self.state == before:
                    self.state, self.ended_at = after, time.monotonic()

        timer = threading.Timer(self.action_delay_s, move)
        timer.daemon = True
        timer.start()

    def finish(self) -> None:
        with self.lock:
            self.state, self.progress, self.ended_at = "FINISHED", 100.0, time.monotonic()

    def settle(self) -> None:
        """As PrusaLink: FINISHED / STOPPED turn IDLE `print_end_s` after the print ended."""
        ended = self.state in ("FINISHED", "STOPPED")
        if ended and time.monotonic() - self.ended_at > self.print_end_s:
            self.state = "IDLE"

    def expire_nonces(self) -> None:
        with self.lock:
            self.nonces = {nonce: 0.0 for nonce in self.nonces}


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


class Handler(BaseHTTPRequestHandler):
    server: PrusaLinkServer  # type: ignore[assignment]
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # -- plumbing -----------------------------------------------------------------------------
    def _reply(self, code: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, code: int, title: str, message: str) -> None:
        self._body()  # read, so the connection stays usable
        self._reply(code, {"title": title, "message": message})

    def _reply_chunked(self, size: int) -> None:
        """200 with `size` bytes, chunked (no Content-Length): only counting stops a reader."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        piece = b"x" * 65536
        try:
            while self.server.printer.huge_sent < size:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.server.printer.huge_sent += len(piece)
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what the test wants to see
        self.close_connection = True

    def _body(self) -> bytes | None:
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length) if length else b""
        return data if len(data) == length else None

    def _refusal(self) -> tuple[int, str] | None:
        """None when authorised; else (401, "" | "stale") or (403, "") as PrusaLink answers."""
        printer = self.server.printer
        if "X-Api-Key" in self.headers:
            return None if self.headers["X-Api-Key"] == printer.api_key else (403, "")
        given = self.headers.get("Authorization", "")
        if not given.startswith("Digest "):
            return 401, ""
        items = (item.strip().split("=", 1) for item in given[7:].split(",") if "=" in item)
        parts = {key: value.strip('"') for key, value in items}
        issued = printer.nonces.get(parts.get("nonce", ""))
        if issued is None or time.monotonic() - issued > printer.nonce_lifetime_s:
            return 401, "stale"
        with printer.lock:
            if printer.stale_next and printer.stale_next[0] == self.command:
                printer.stale_next.pop(0)
                return 401, "stale"
        # MD5-sess, as PrusaLink (poorwsgi) asks for
        ha1 = _md5(
            f"{_md5(f'{printer.user}:{REALM}:{printer.password}')}:{parts['nonce']}:"
            f"{parts.get('cnonce', '')}"
        )
        ha2 = _md5(f"{self.command}:{parts.get('uri', '')}")
        expected = _md5(
            f"{ha1}:{parts['nonce']}:{parts.get('nc', '')}:{parts.get('cnonce', '')}:"
            f"{parts.get('qop', '')}:{ha2}"
        )
        ok = parts.get("username") == printer.user and parts.get("response") == expected
        return None if ok else (401, "")

    def _refuse(self, code: int, why: str) -> None:
        """As PrusaLink words it (the body is read first, so that the client reliably sees the
        answer: the real server may close on an unread body, which is timing-dependent)."""
        printer = self.server.printer
        self._body()
        if code == 403:
            data = b"Bad X-Api-Key."
            self.send_response(403)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        nonce = secrets.token_hex(16)
        with printer.lock:
            printer.nonces[nonce] = time.monotonic()
            printer.challenges += 1
        stale = ', stale="true"' if why == "stale" else ""
        challenge = (
            f'Digest realm="{REALM}",qop="auth",algorithm="MD5-sess",nonce="{nonce}",'
            f'opaque="{OPAQUE}"{stale}'
        )
        body = {"title": "Unauthorized", "message": "Invalid credentials"}
        self._reply(401, body, {"WWW-Authenticate": challenge})

    def _dispatch(self) -> None:
        printer = self.server.printer
        printer.requests.append((self.command, self.path))
        with printer.lock:
            stall = printer.stall_next.pop(0) if printer.stall_next else 0.0
            failure = printer.fail_next.pop(0) if printer.fail_next else 0
            huge = printer.huge_next.pop(0) if printer.huge_next else 0
        if stall:
            time.sleep(stall)
        if huge:
            self._body()
            self._reply_chunked(huge)
            return
        if failure:
            self._error(failure, "Injected failure", "an injected failure")
            return
        refusal = None
        if not (printer.open_version and self.path == "/api/version"):
            refusal = self._refusal()
        if refusal is not None:
            self._refuse(*refusal)
            return
        self._route(printer)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _dispatch

    # -- API ----------------------------------------------------------------------------------
    def _route(self, printer: PrinterState) -> None:
        path = unquote(self.path.split("?")[0])
        method = self.command
        if method == "GET" and path == "/api/version":
            self._reply(200, {"api": "2.0.0", "server": "0.8.1", "text": "PrusaLink (test rig)"})
        elif method == "GET" and path == "/api/v1/status":
            with printer.lock:
                printer.settle()
                self._reply(200, _status(printer))
        elif method == "GET" and path == "/api/v1/storage":
            self._reply(200, {"storage_list": _storage_list()})
        elif method == "GET" and path == "/api/v1/job":
            with printer.lock:
                job = _job(printer)
            self._reply(200, job) if job else self._reply(204)
        elif path.startswith("/api/v1/job/"):
            with printer.lock:
                self._job_action(printer, method, path.split("/")[4:])
        elif path.startswith("/api/v1/files/"):
            self._files(printer, method, path[len("/api/v1/files/") :])
        else:
            self._error(404, "Not Found", "Resource you want not found.")

    def _job_action(self, printer: PrinterState, method: str, parts: list[str]) -> None:
        if not parts or not parts[0].isdigit() or int(parts[0]) != printer.job_id:
            self._error(404, "Not Current Job", "Resource you want not found.")
            return
        action = parts[1] if len(parts) > 1 else ""
        if method == "DELETE" and not action and printer.state in ("PRINTING", "PAUSED"):
            printer.later(printer.state, "STOPPED")
        elif method == "PUT" and action == "pause" and printer.state == "PRINTING":
            printer.later("PRINTING", "PAUSED")
        elif method == "PUT" and action == "resume" and printer.state == "PAUSED":
            printer.later("PAUSED", "PRINTING")
        elif (method == "PUT" and action in ("pause", "resume")) or method == "DELETE":
            wanted = "paused" if action == "resume" else "printing"
            self._error(409, f"Printer Is Not {wanted.title()}", f"Printer is not {wanted}.")
            return
        else:
            self._error(405, "Method Not Allowed", f"{method} {action}")
            return
        self._reply(204)

    def _files(self, printer: PrinterState, method: str, target: str) -> None:
        storage, _, name = target.partition("/")
        if storage not in (LOCAL, "sdcard"):
            self._error(404, "Location Not Found", "Location not found, use local.")
            return
        key = f"/{storage}/{name}"
        if method == "PUT":
            data = self._body()
            if data is None:  # the client went away mid-upload: keep nothing
                return
            with printer.lock:
                if key in printer.files and self.headers.get("Overwrite") != "?1":
                    self._error(409, "File Already Exists", "File already exists.")
                    return
                printer.files[key] = data
                if self.headers.get("Print-After-Upload") == "?1" and not self._start(printer, key):
                    return
            self._reply(201)
        elif method == "POST":
            with printer.lock:
                if key not in printer.files:
                    self._error(404, "File Not Found", "File not found.")
                elif self._start(printer, key):
                    self._reply(204)
        elif method == "DELETE":
            printer.files.pop(key, None)
            self._reply(204)
        elif key in printer.files:
            self._reply(200, {"name": name, "size": len(printer.files[key])})
        else:
            self._error(404, "File Not Found", "File not found.")

    def _start(self, printer: PrinterState, key: str) -> bool:
        printer.settle()
        if printer.state != "IDLE":
            self._error(409, "Not in state to print", "Printer is not in state to print.")
            return False
        printer.job_id += 1
        printer.job_file, printer.state, printer.progress = key, "PRINTING", 0.0
        return True


def _storage_list() -> list[dict[str, Any]]:
    return [
        {
            "type": "LOCAL",
            "path": "/local",
            "name": "PrusaLink gcodes",
            "available": True,
            "read_only": False,
            "free_space": 10**9,
        },
        {"type": "SDCARD", "path": "/sdcard", "available": False},
    ]


def _status(printer: PrinterState) -> dict[str, Any]:
    heating = printer.state in ("PRINTING", "PAUSED")
    status: dict[str, Any] = {
        "storage": [{"path": "/local", "read_only": False, "name": "PrusaLink gcodes"}],
        "printer": {
            "state": printer.state,
            "temp_nozzle": 214.8 if heating else 25.0,
            "target_nozzle": 215.0 if heating else 0.0,
            "temp_bed": 59.9 if heating else 25.0,
            "target_bed": 60.0 if heating else 0.0,
            "axis_z": 0.2,
            "flow": 100,
            "speed": 100,
        },
    }
    if printer.state in ("PRINTING", "PAUSED"):
        status["job"] = {
            "id": printer.job_id,
            "progress": printer.progress,
            "time_remaining": 1200,
            "time_printing": 60,
        }
    return status


def _job(printer: PrinterState) -> dict[str, Any] | None:
    if printer.state not in ("PRINTING", "PAUSED"):  # PrusaLink forgets an ended job at once
        return None
    name = printer.job_file.rsplit("/", 1)[-1]
    return {
        "id": printer.job_id,
        "state": printer.state,
        "progress": printer.progress,
        "time_remaining": 1200,
        "time_printing": 60,
        "file": {
            "name": name,
            "display_name": name,
            "path": printer.job_file.rsplit("/", 1)[0],
            "size": len(printer.files.get(printer.job_file, b"")),
        },
    }


class PrusaLinkServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, printer: PrinterState) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.printer = printer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that timed out or stopped reading is what timeout tests provoke: no traceback
        if not isinstance(sys.exc_info()[1], BrokenPipeError | ConnectionResetError):
            super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@contextmanager
def running_prusalink(**state: Any) -> Iterator[PrusaLinkServer]:
    """A server on a free port for the duration of the block."""
    server = PrusaLinkServer(PrinterState(**state))
    thread = threading.Thread(
        target=server.serve_forever, args=(0.05,), name="prusalink-rig", daemon=True
    )  # a short poll: shutting down takes 0.05 s, not 0.5 s
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
