"""Which addresses the MCP HTTP server may listen on: this machine's loopback ones only."""

from __future__ import annotations

import argparse
import ipaddress


def check_loopback(host: str) -> str:
    """The address to bind for `host`; ValueError, saying why, for anything reachable from
    another machine."""
    if host.strip().lower() == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host.strip().strip("[]"))
    except ValueError:
        address = None
    if address is None or not address.is_loopback:
        raise ValueError(
            f"The MCP server only listens on this machine's loopback address (127.0.0.1, ::1 or "
            f"localhost), not on {host!r}: anyone who can reach it could run Workbench's tools. "
            "Other machines can connect through an SSH tunnel "
            "(ssh -L 8765:127.0.0.1:8765 this-host)."
        )
    return str(address)


def loopback_host(host: str) -> str:
    """`--host`'s argparse type: refused at parse time (exit 2, the reason), before anything
    is opened or bound."""
    try:
        check_loopback(host)
    except ValueError as refused:
        raise argparse.ArgumentTypeError(str(refused)) from None
    return host
