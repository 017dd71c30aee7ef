"""`McpHttpServer`: the MCP server over streamable HTTP, on a loopback address, behind a token.

Only this machine can connect (a loopback bind; the SDK's Host/Origin checks refuse DNS-rebinding
pages), and every request must carry `Authorization: Bearer <token>` (the keyring's, see
`token`), else 401. uvicorn runs in the caller's asyncio loop (the CLI's, or the desktop app's),
on a socket bound here, so a port in use fails `start()` with a plain OSError.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import socket
from collections.abc import Iterator

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from workbench.core.context import AppContext
from workbench.mcp.loopback import check_loopback
from workbench.mcp.server import build_server

log = logging.getLogger(__name__)
MCP_PATH = "/mcp"
SHUTDOWN_GRACE_S = 2.0  # open event streams get this long to close before they are cut
WEBSOCKET_POLICY_VIOLATION = 1008


class McpHttpServer:
    def __init__(
        self,
        context: AppContext,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        token: str,
        approve: bool = False,
    ) -> None:
        self.host = check_loopback(host)
        if not token:
            raise ValueError("The MCP HTTP server needs a token (see workbench.mcp.token).")
        self.port = port
        self.url = ""
        self._token = token
        self._server = build_server(context, client_label="http", approve=approve)
        self._uvicorn: uvicorn.Server | None = None
        self._serving: asyncio.Task[None] | None = None

    async def start(self) -> str:
        """Listen; returns the URL clients connect to, e.g. http://127.0.0.1:8765/mcp."""
        if self._serving is not None:
            return self.url
        listening = _bound_socket(self.host, self.port)
        self.port = listening.getsockname()[1]
        shown = f"[{self.host}]" if ":" in self.host else self.host
        self.url = f"http://{shown}:{self.port}{MCP_PATH}"
        app = self._server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            host=self.host,
            transport_security=_loopback_only(shown),
        )
        config = uvicorn.Config(
            RequireBearer(app, self._token),
            log_config=None,  # the app's logging stays as it is
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=int(SHUTDOWN_GRACE_S),
        )
        self._uvicorn = _QuietServer(config)
        self._serving = asyncio.ensure_future(self._uvicorn.serve(sockets=[listening]))
        while not self._uvicorn.started:
            if self._serving.done():  # failed to start: say why
                listening.close()
                self._serving.result()
                raise RuntimeError("The MCP HTTP server stopped while starting.")
            await asyncio.sleep(0.02)
        log.info("serving MCP at %s", self.url)
        return self.url

    async def stop(self) -> None:
        """Stop serving: open sessions end, running calls are cancelled."""
        if self._uvicorn is None or self._serving is None:
            return
        self._uvicorn.should_exit = True
        with contextlib.suppress(asyncio.CancelledError, SystemExit):
            await self._serving
        self._uvicorn = None
        self._serving = None


class _QuietServer(uvicorn.Server):
    """uvicorn in someone else's loop: the owner (CLI, desktop app) handles SIGINT/SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _bound_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        raise OSError(
            error.errno,
            f"Cannot listen on {host} port {port}: {error.strerror}. Choose another --port "
            "(0 picks a free one).",
        ) from error
    listening.setblocking(False)
    return listening


def _loopback_only(host: str) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding guard: Host and Origin must name this loopback server."""
    hosts = sorted({host, "127.0.0.1", "localhost", "[::1]"})
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in hosts],
        allowed_origins=[f"http://{name}:*" for name in hosts],
    )


class RequireBearer:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401.

    It fails closed: besides HTTP only the server's own lifespan events pass (they carry no
    request); any other scope (a websocket, a type a future server adds) is refused, since no
    token was checked for it."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope.get("type")
        if kind == "lifespan" or (kind == "http" and self._authorised(scope)):
            await self.app(scope, receive, send)
        elif kind == "http":
            await _unauthorised(send)
        elif kind == "websocket":  # closing before accepting: the client gets HTTP 403
            await send({"type": "websocket.close", "code": WEBSOCKET_POLICY_VIOLATION})
        else:  # ASGI: an app raises for a scope type it does not serve
            raise RuntimeError(f"The MCP server serves HTTP only, not {kind!r} connections.")

    def _authorised(self, scope: Scope) -> bool:
        given = b""
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                given = value
        scheme, _, credential = given.partition(b" ")
        if scheme.lower() != b"bearer":
            return False
        return hmac.compare_digest(credential.strip(), self._expected)


async def _unauthorised(send: Send) -> None:
    body = json.dumps(
        {
            "error": "unauthorized",
            "error_description": "Send the Workbench MCP token as 'Authorization: Bearer "
            "<token>' (`workbench --headless mcp --show-token` prints it).",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="workbench"'),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
