"""A small REAL MCP server written with the official `mcp` SDK (MCPServer), for the tests of the
external-MCP-servers plugin. It stands for an engineer's own server (a lab's calculation service,
a motion stage):

    beam_deflection(load_n, length_m, e_gpa=200, i_cm4=100)  the mid-span deflection in mm of a
                                                             simply supported beam (a number)
    move_stage(mm)        moves a (pretend) stage: the one the user marks as acting on the world
    refuse(reason)        always fails with `reason` (a tool error comes back in words)

    python -m tests.rigs.mcp_test_server                     stdio
    python -m tests.rigs.mcp_test_server --http PORT [--token T]
                                          streamable HTTP on 127.0.0.1:PORT/mcp; with a token,
                                          every request must carry `Authorization: Bearer T`

Every call to move_stage is appended to the file named by MCP_TEST_STAGE_LOG (when set), so a
test can see that a refused call never reached the server; every start of the server to the file
named by MCP_TEST_START_LOG (how a test counts sessions).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("test-bench", instructions="Beam calculations and a motion stage.")


@server.tool()
def beam_deflection(
    load_n: float, length_m: float, e_gpa: float = 200.0, i_cm4: float = 100.0
) -> float:
    """Mid-span deflection in millimetres of a simply supported beam under a central point load
    (F L^3 / 48 E I)."""
    if length_m <= 0:
        raise ToolError("length_m must be positive (the beam's span in metres)")
    deflection_m = load_n * length_m**3 / (48 * e_gpa * 1e9 * i_cm4 * 1e-8)
    return round(deflection_m * 1000, 6)


@server.tool()
def move_stage(mm: float) -> str:
    """Move the linear stage by `mm` millimetres (positive: away from home)."""
    log = os.environ.get("MCP_TEST_STAGE_LOG")
    if log:
        with Path(log).open("a", encoding="utf-8") as file:
            file.write(f"{mm}\n")
    return f"stage moved by {mm} mm"


@server.tool()
def refuse(reason: str) -> str:
    """Always fails, with `reason` as the error."""
    raise ToolError(reason)


def _serve_http(port: int, token: str) -> None:
    """Streamable HTTP behind a bearer-token check (how a real remote server is protected)."""
    import uvicorn
    from starlette.types import ASGIApp, Receive, Scope, Send

    app = server.streamable_http_app()

    def guarded(inner: ASGIApp) -> ASGIApp:
        async def guard(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http" and token:
                headers = dict(scope.get("headers") or [])
                if headers.get(b"authorization", b"").decode() != f"Bearer {token}":
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b"missing or wrong token"})
                    return
            await inner(scope, receive, send)

        return guard

    uvicorn.run(guarded(app), host="127.0.0.1", port=port, log_level="warning")


def main() -> None:
    starts = os.environ.get("MCP_TEST_START_LOG")
    if starts:
        with Path(starts).open("a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT")
    parser.add_argument("--token", default="", help="the bearer token HTTP requests must carry")
    arguments = parser.parse_args()
    if arguments.http is not None:
        _serve_http(arguments.http, arguments.token)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
