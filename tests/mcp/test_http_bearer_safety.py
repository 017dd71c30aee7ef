"""The MCP HTTP server's bearer middleware fails closed (issue 28): a connection that is not an
HTTP request it checked never reaches the MCP app, whatever its scope type.

The middleware is driven as uvicorn drives it (scope, receive, send); the app behind it records
whether it was reached, which is the whole point of the middleware.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from workbench.mcp.http import RequireBearer

TOKEN = "the-right-token"


class RecordingApp:
    """The MCP app behind the middleware: notes every scope that reaches it."""

    def __init__(self) -> None:
        self.reached: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.reached.append(scope["type"])


def serve(scope: dict[str, Any]) -> tuple[RecordingApp, list[dict[str, Any]], Exception | None]:
    """(the app behind, what the middleware sent, what it raised) for one connection."""
    app, sent = RecordingApp(), []

    async def receive() -> dict[str, Any]:
        return {"type": f"{scope['type']}.connect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    try:
        asyncio.run(RequireBearer(app, TOKEN)(scope, receive, send))
    except Exception as raised:  # an ASGI app raises for a scope type it does not serve
        return app, sent, raised
    return app, sent, None


def bearer(token: str) -> list[tuple[bytes, bytes]]:
    return [(b"authorization", f"Bearer {token}".encode())]


def test_an_http_request_passes_only_with_the_token() -> None:
    admitted, _, _ = serve({"type": "http", "headers": bearer(TOKEN)})
    assert admitted.reached == ["http"]
    refused, sent, _ = serve({"type": "http", "headers": bearer("wrong")})
    assert refused.reached == [] and sent[0]["status"] == 401


@pytest.mark.parametrize("headers", [[], bearer(TOKEN)])
def test_a_websocket_never_reaches_the_mcp_app(headers: list[tuple[bytes, bytes]]) -> None:
    """Even with the token: the server speaks HTTP only, and nothing checked a websocket."""
    app, sent, _ = serve({"type": "websocket", "headers": headers})
    assert app.reached == []
    assert sent == [{"type": "websocket.close", "code": 1008}]  # the handshake gets 403


def test_an_unknown_scope_type_is_refused_not_passed_through() -> None:
    app, sent, raised = serve({"type": "webtransport", "headers": bearer(TOKEN)})
    assert app.reached == [] and sent == []
    assert raised is not None and "HTTP only" in str(raised)


def test_the_servers_own_lifespan_events_pass() -> None:
    app, _, raised = serve({"type": "lifespan", "asgi": {"version": "3.0"}})
    assert app.reached == ["lifespan"] and raised is None
