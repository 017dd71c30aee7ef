"""What the Slurm layer needs of a remote machine: run an argument vector, move files.

The SSH connection implements it (ssh/); the Slurm client, the tracker and the tools only see this
protocol, so that every remote command is an argument vector quoted in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class RemoteCommandFailed(RuntimeError):
    """A remote command exited non-zero where success was needed; the message quotes its stderr."""

    def __init__(self, result: RemoteResult, what: str) -> None:
        detail = (result.stderr or result.stdout).strip() or "no output"
        super().__init__(f"{what} failed on {result.host} (exit {result.exit_code}): {detail}")
        self.result = result


@dataclass(frozen=True)
class RemoteResult:
    host: str
    argv: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def check(self, what: str) -> RemoteResult:
        """This result, or RemoteCommandFailed saying `what` failed and why."""
        if not self.ok:
            raise RemoteCommandFailed(self, what)
        return self


class RemoteShell(Protocol):
    """One host's shell and files. Every method may raise ssh.errors.SshFailure."""

    @property
    def host(self) -> str:
        """The host profile's name (as the user configured it), not its address."""

    def run(
        self, argv: Sequence[str], *, timeout: float = 60.0, stdin: str | None = None
    ) -> RemoteResult:
        """Run one command, given as an argument vector (quoted with shlex.join, never re-split)."""

    def home(self) -> str:
        """The remote user's home folder, absolute."""

    def read_text(self, path: str, offset: int = 0, limit: int = 1_000_000) -> str:
        """At most `limit` bytes of a remote text file from byte `offset` ("" past its end)."""

    def write_text(self, path: str, text: str, mode: int = 0o644) -> None:
        """Write a remote file, creating its parent folders."""

    def download(self, remote: str, local: Path) -> Path:
        """Copy a remote file or folder (recursively) to `local`; return the local path."""

    def upload(self, local: Path, remote: str) -> None:
        """Copy a local file or folder (recursively) to `remote`, creating parents."""
