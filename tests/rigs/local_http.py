"""What the FAKE HTTP services in the test rigs share (stdlib http.server on 127.0.0.1): serving
a handler from a daemon thread, starting and stopping it, a quiet handler that answers bytes or
JSON. A fake subclasses `LocalHttpFake`, names its `handler` (which reaches the fake as
`self.fake`) and is used as a context manager:

    class FakeThing(LocalHttpFake):
        name = "the fake thing"
        handler = _ThingHandler

    with FakeThing() as thing:
        client(base_url=thing.url)
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self


class LocalServer(ThreadingHTTPServer):
    daemon_threads = True  # a request still open never keeps the test process alive


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def send_bytes(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, status: int, body: object, content_type: str = "application/json") -> None:
        self.send_bytes(status, json.dumps(body).encode(), content_type)


class LocalHttpFake:
    """Serves `handler` on 127.0.0.1 (a free port first, the same port again after a stop)."""

    name: ClassVar[str] = "the fake server"
    handler: ClassVar[type[BaseHTTPRequestHandler]]

    def __init__(self) -> None:
        self.port = 0
        self._server: LocalServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError(f"{self.name} is not running")
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Self:
        bound = type("Handler", (self.handler,), {"fake": self})
        self._server = LocalServer(("127.0.0.1", self.port), bound)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
