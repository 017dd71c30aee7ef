"""The printer host's wire: where its socket is, and the JSON lines spoken on it.

One process per user (per WORKBENCH_HOME) owns the USB printers: `workbench --headless serve`, or
the desktop app when no such host runs. Every other process (a headless `tool` call, an agent, a
second window) reaches the printers through the host's Unix socket, in a private runtime folder.

Each message is one JSON object on one line. A client opens a connection, sends
`{"op": "hello", "protocol": 1}` and then requests `{"id": n, "op": "...", ...arguments}`; each
gets `{"id": n, "ok": true, "result": {...}}` or `{"id": n, "ok": false, "error": "...",
"kind": "...", "offer": {...} | null}`. After `{"op": "subscribe"}` the connection carries
`{"event": "printer", "printer": port, "kind": ..., "snapshot": {...}}` lines until it closes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.core.local_socket import (
    check_socket_path_length,
    raising_as,
    runtime_folder,
    verify_private,
)
from workbench.core.paths import AppPaths
from workbench_plugins.printing.usb.serial_port import SerialHostError

PROTOCOL_VERSION = 1
SOCKET_NAME = "printers.sock"
LOCK_NAME = "printers.lock"
MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # a snapshot or a resume plan is a few kilobytes
PURPOSE = "the printer host"  # in messages: "... so Workbench does not use it for <PURPOSE>"

# what the host does with each request; anything else is refused as "protocol"
OPERATIONS = (
    "list",
    "status",
    "connect",
    "disconnect",
    "print",
    "pause",
    "resume",
    "resume_plan",
    "resume_from_layer",
    "cancel",
    "emergency_stop",
    "command",
)


class HostUnavailable(SerialHostError):
    """No printer host answers on the socket (none runs, or it just stopped)."""


class HostCallError(SerialHostError):
    """The host refused or failed a request. `kind`: "printer" (the printer or its state),
    "resume_refused" (with `offer`, a resume-from-layer plan as a dict), "protocol", "host"."""

    def __init__(self, message: str, *, kind: str = "printer", offer: dict[str, Any] | None = None):
        super().__init__(message)
        self.kind = kind
        self.offer = offer


class HostAlreadyRunning(SerialHostError):
    """Another process holds the host's lock; `owner` says which (its process id and command)."""

    def __init__(self, owner: str) -> None:
        super().__init__(
            f"A printer host already runs for this user: {owner}. It owns the USB printers; the "
            "CLI, the agent and the desktop app use it. To host here instead, stop that process "
            "first (Ctrl+C where it runs)."
        )
        self.owner = owner


# -- where --------------------------------------------------------------------------------------
def socket_path(paths: AppPaths, *, create: bool = True) -> Path:
    """The host's socket, in this data folder's private runtime folder (create: make that
    folder; clients pass create=False, they only look and verify_runtime checks what they find).
    SerialHostError when the folder is not private or the path too long for a Unix socket."""
    with raising_as(SerialHostError):
        folder = runtime_folder(paths, create=create, purpose=PURPOSE)
        return check_socket_path_length(folder / SOCKET_NAME, purpose=PURPOSE)


def lock_path(paths: AppPaths) -> Path:
    """The lock file beside the socket that says which process hosts (makes the folder)."""
    with raising_as(SerialHostError):
        return runtime_folder(paths, create=True, purpose=PURPOSE) / LOCK_NAME


def verify_runtime(socket: Path) -> None:
    """Before talking to a socket: its folders, where they exist, are private and ours (no
    other user can stand in for the host); SerialHostError if not."""
    with raising_as(SerialHostError):
        verify_private(socket, purpose=PURPOSE)


# -- messages -----------------------------------------------------------------------------------
def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), default=str).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """One message; HostCallError(kind="protocol") for anything but a JSON object."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise HostCallError(f"not a JSON line ({error})", kind="protocol") from None
    if not isinstance(message, dict):
        raise HostCallError("a message must be a JSON object", kind="protocol")
    return message


def error_reply(number: object, error: Exception) -> dict[str, Any]:
    if isinstance(error, HostCallError):
        kind, offer = error.kind, error.offer
    else:
        kind, offer = ("printer" if isinstance(error, SerialHostError) else "host"), None
    return {"id": number, "ok": False, "error": str(error), "kind": kind, "offer": offer}


def result_of(reply: dict[str, Any]) -> dict[str, Any]:
    """The result of a reply, or its error raised as a HostCallError."""
    if reply.get("ok"):
        result = reply.get("result")
        return result if isinstance(result, dict) else {}
    raise HostCallError(
        str(reply.get("error") or "the printer host failed without saying why"),
        kind=str(reply.get("kind") or "host"),
        offer=reply.get("offer") if isinstance(reply.get("offer"), dict) else None,
    )
