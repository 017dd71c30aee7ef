"""Test rig: a PrusaLink-API v1 server of our own on 127.0.0.1 (stdlib http.server, a thread).

It implements the endpoints the printing plugin uses, with the shapes of the public OpenAPI spec
(learned, not copied): /api/version, /api/v1/status, /api/v1/job (+ pause/resume, DELETE to stop),
/api/v1/storage, PUT/POST/DELETE /api/v1/files/{storage}/{path}. Auth is X-Api-Key or HTTP digest
(MD5, qop=auth). `fail_next` makes the next requests answer with a status code (e.g. 503),
`stall_next` makes them wait before answering (client timeouts) and `huge_next` makes them answer
200 with a body of that many bytes, sent in chunks without a length (bounded reads).
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

REALM = "Printer API"


@dataclass
class PrinterState:
    api_key: str = "secret-key"
    auth: str = "api_key"  # or "digest"
    user: str = "maker"
    password: str = "secret-pass"
    files: dict[str, bytes] = field(default_factory=dict)
    state: str = "IDLE"  # IDLE, PRINTING, PAUSED, FINISHED, STOPPED
    job_id: int = 0
    job_file: str = ""
    progress: float = 0.0
    fail_next: list[int] = field(default_factory=list)
    stall_next: list[float] = field(default_factory=list)
    huge_next: list[int] = field(default_factory=list)
    huge_sent: int = 0  # bytes of huge bodies written before the client stopped reading
    requests: list[tuple[str, str]] = field(default_factory=list)
    nonces: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)


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

    def _authorised(self) -> bool:
        printer = self.server.printer
        if printer.auth == "api_key":
            return self.headers.get("X-Api-Key") == printer.api_key
        given = self.headers.get("Authorization", "")
        if given.startswith("Digest "):
            parts = dict(item.strip().split("=", 1) for item in given[7:].split(",") if "=" in item)
            parts = {k: v.strip('"') for k, v in parts.items()}
            if parts.get("nonce") in printer.nonces and parts.get("username") == printer.user:
                ha1 = _md5(f"{printer.user}:{REALM}:{printer.password}")
                ha2 = _md5(f"{self.command}:{parts.get('uri', '')}")
                expected = _md5(
                    f"{ha1}:{parts['nonce']}:{parts.get('nc', '')}:{parts.get('cnonce', '')}:"
                    f"{parts.get('qop', '')}:{ha2}"
                )
                if parts.get("response") == expected:
                    return True
        return False

    def _challenge(self) -> None:
        self._body()  # drain, so the connection stays usable
        printer = self.server.printer
        headers = {}
        if printer.auth == "digest":
            nonce = secrets.token_hex(16)
            printer.nonces.add(nonce)
            headers["WWW-Authenticate"] = (
                f'Digest realm="{REALM}", nonce="{nonce}", qop="auth", algorithm=MD5'
            )
        self._reply(401, {"title": "Unauthorized", "message": "Invalid credentials"}, headers)

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
            self._body()
            self._reply(failure, {"title": "Injected failure"})
            return
        if not self._authorised():
            self._challenge()
            return
        with printer.lock:
            self._route(printer)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _dispatch

    # -- API ----------------------------------------------------------------------------------
    def _route(self, printer: PrinterState) -> None:
        path = unquote(self.path.split("?")[0])
        method = self.command
        if method == "GET" and path == "/api/version":
            self._reply(
                200,
                {
                    "api": "2.0.0",
                    "server": "2.1.2",
                    "text": "PrusaLink (test rig)",
                    "hostname": "rig",
                },
            )
        elif method == "GET" and path == "/api/v1/status":
            self._reply(200, self._status(printer))
        elif method == "GET" and path == "/api/v1/storage":
            self._reply(
                200,
                {
                    "storage_list": [
                        {
                            "type": "USB",
                            "path": "/usb",
                            "name": "usb",
                            "available": True,
                            "read_only": False,
                        }
                    ]
                },
            )
        elif method == "GET" and path == "/api/v1/job":
            if printer.state in ("IDLE",) or not printer.job_id:
                self._reply(204)
            else:
                self._reply(200, self._job(printer))
        elif path.startswith("/api/v1/job/"):
            self._job_action(printer, method, path.split("/")[4:])
        elif path.startswith("/api/v1/files/"):
            self._files(printer, method, path[len("/api/v1/files/") :])
        else:
            self._reply(404, {"title": "Not Found"})

    def _status(self, printer: PrinterState) -> dict[str, Any]:
        printing = printer.state in ("PRINTING", "PAUSED")
        status: dict[str, Any] = {
            "printer": {
                "state": printer.state,
                "temp_nozzle": 214.8 if printing else 25.0,
                "target_nozzle": 215.0 if printing else 0.0,
                "temp_bed": 59.9 if printing else 25.0,
                "target_bed": 60.0 if printing else 0.0,
                "axis_z": 0.2,
                "flow": 100,
                "speed": 100,
            },
            "storage": {"path": "/usb/", "name": "usb", "read_only": False},
        }
        if printer.job_id:
            status["job"] = {
                "id": printer.job_id,
                "progress": printer.progress,
                "time_remaining": 1200,
                "time_printing": 60,
            }
        return status

    def _job(self, printer: PrinterState) -> dict[str, Any]:
        return {
            "id": printer.job_id,
            "state": printer.state,
            "progress": printer.progress,
            "time_remaining": 1200,
            "time_printing": 60,
            "file": {
                "name": printer.job_file.rsplit("/", 1)[-1],
                "path": printer.job_file,
                "size": len(printer.files.get(printer.job_file, b"")),
            },
        }

    def _job_action(self, printer: PrinterState, method: str, parts: list[str]) -> None:
        if not parts or not parts[0].isdigit() or int(parts[0]) != printer.job_id:
            self._reply(404, {"title": "No such job"})
            return
        action = parts[1] if len(parts) > 1 else ""
        moves = {
            ("PUT", "pause"): ("PRINTING", "PAUSED"),
            ("PUT", "resume"): ("PAUSED", "PRINTING"),
            ("PUT", "continue"): ("PAUSED", "PRINTING"),
        }
        if method == "DELETE" and not action:
            if printer.state not in ("PRINTING", "PAUSED"):
                self._reply(409, {"title": "Not printing"})
                return
            printer.state = "STOPPED"
            self._reply(204)
        elif (method, action) in moves:
            before, after = moves[(method, action)]
            if printer.state != before:
                self._reply(409, {"title": f"Printer is {printer.state}"})
                return
            printer.state = after
            self._reply(204)
        else:
            self._reply(405, {"title": "Method not allowed"})

    def _files(self, printer: PrinterState, method: str, target: str) -> None:
        key = "/" + target
        if method == "PUT":
            data = self._body()
            if data is None:  # the client went away mid-upload: keep nothing
                return
            if key in printer.files and self.headers.get("Overwrite") != "?1":
                self._reply(409, {"title": "File exists"})
                return
            printer.files[key] = data
            if self.headers.get("Print-After-Upload") == "?1" and not self._start(printer, key):
                return
            self._reply(201)
        elif method == "POST":
            if key not in printer.files:
                self._reply(404, {"title": "No such file"})
                return
            if self._start(printer, key):
                self._reply(204)
        elif method == "DELETE":
            printer.files.pop(key, None)
            self._reply(204)
        elif method in ("GET", "HEAD"):
            if key in printer.files:
                self._reply(200, {"name": target, "size": len(printer.files[key])})
            else:
                self._reply(404, {"title": "No such file"})

    def _start(self, printer: PrinterState, key: str) -> bool:
        if printer.state in ("PRINTING", "PAUSED"):
            self._reply(409, {"title": "Printer is busy"})
            return False
        printer.job_id += 1
        printer.job_file, printer.state, printer.progress = key, "PRINTING", 0.0
        return True


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
    thread = threading.Thread(target=server.serve_forever, name="prusalink-rig", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
