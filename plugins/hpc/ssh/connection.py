"""`SshShell`: one host's RemoteShell over ONE paramiko connection (exec channels and SFTP).

Commands are argument vectors, quoted here with `shlex.join` and nowhere else; the remote login
shell splits them back into exactly those arguments.

A dropped connection (transport no longer active, EOF, socket error) is re-established on the
next use, with backoff (RECONNECT_DELAYS_S). Whether a command is then run again:
- a command that never started (the channel could not be opened) is always retried once;
- a command that may have started when the connection died is retried once only when that is
  safe: `retry=True`, or, by default (`retry=None`), a read-only query recognised by its argv
  (squeue, sinfo, sacct, `scontrol show`, `sacctmgr show`, cat/tail/ls/stat..., `X --version`).
  Anything else (sbatch, scancel, a training run) raises SshFailure("lost"), saying it may or may
  not have run: submitting a job twice is worse than asking.
File operations (SFTP) are retried once after a reconnect: each rewrites or rereads whole files.
"""

from __future__ import annotations

import contextlib
import errno
import posixpath
import shlex
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import paramiko

from workbench_plugins.hpc.remote import RemoteResult
from workbench_plugins.hpc.ssh import transfer
from workbench_plugins.hpc.ssh.connect import Connection
from workbench_plugins.hpc.ssh.errors import TRANSIENT, SshFailure, failure_from

RECONNECT_DELAYS_S = (0.5, 1.0, 2.0)  # waits between the tries of re-establishing a connection
POLL_S = 0.01  # how often a running command's channel is looked at
READ_ONLY_COMMANDS = frozenset(
    {"squeue", "sinfo", "sacct", "cat", "tail", "head", "ls", "stat", "test", "pwd", "id"}
    | {"hostname", "uname", "printf", "printenv", "echo", "true", "whoami", "du", "df", "wc"}
    | {"grep"}
)
T = TypeVar("T")


def is_read_only(argv: Sequence[str]) -> bool:
    """Whether running `argv` twice does no harm (it only reads), judged by its words."""
    program = posixpath.basename(argv[0]) if argv else ""
    if program in READ_ONLY_COMMANDS or list(argv[1:]) == ["--version"]:
        return True
    if program == "scontrol":
        return len(argv) > 1 and argv[1] in ("show", "ping")
    if program == "sacctmgr":
        words = [word.lower() for word in argv[1:] if not word.startswith("-")]
        return bool(words) and words[0] in ("show", "list")
    return False


class _Lost(Exception):
    """The connection died while a command may have been running."""


class SshShell:
    """The RemoteShell of one host; safe to share between threads (one connection for all)."""

    def __init__(self, name: str, what: str, connect: Callable[[], Connection]) -> None:
        self._name = name
        self._what = what  # "name (user@host:port)" for messages
        self._connect = connect
        self._lock = threading.RLock()  # guards the connection and its SFTP session
        self._sftp_lock = threading.Lock()  # paramiko's SFTP session serves one call at a time
        self._connection: Connection | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._home: str | None = None
        self._ever_connected = False
        self.reconnects = 0  # how often a dropped connection was re-established

    @property
    def host(self) -> str:
        return self._name

    @property
    def where(self) -> str:
        """The profile name and user@host:port, for messages."""
        return self._what

    # -- the connection -------------------------------------------------------------------------
    def connect(self) -> None:
        """Open the connection now (else the first command opens it); SshFailure if it cannot."""
        self._transport()

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _transport(self) -> Any:
        with self._lock:
            if self._connection is not None and self._connection.active():
                return self._connection.transport
            self._drop()
            self._connection = self._open()
            return self._connection.transport

    def _open(self) -> Connection:
        """A new connection; after a drop, transient failures are tried again with backoff."""
        delays = RECONNECT_DELAYS_S if self._ever_connected else ()
        for delay in (*delays, None):
            try:
                connection = self._connect()
            except SshFailure as failure:
                if delay is None or failure.kind not in TRANSIENT:
                    raise
                time.sleep(delay)
                continue
            if self._ever_connected:
                self.reconnects += 1
            self._ever_connected = True
            return connection
        raise SshFailure("other", f"could not connect to {self._what}")  # not reached

    def _drop(self, transport: Any = None) -> None:
        """Forget the connection (only if it is still `transport`, when given)."""
        with self._lock:
            if self._connection is None:
                return
            if transport is not None and self._connection.transport is not transport:
                return  # another thread already replaced it
            if self._sftp is not None:
                # a dead session's close fails in many ways; it is gone either way
                with contextlib.suppress(Exception):
                    self._sftp.close()
            self._sftp = None
            self._connection.close()
            self._connection = None

    # -- commands -------------------------------------------------------------------------------
    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 60.0,
        stdin: str | None = None,
        retry: bool | None = None,
    ) -> RemoteResult:
        """Run `argv` (quoted with shlex.join); `retry`: see the module's docstring."""
        words = [str(word) for word in argv]
        if not words:
            raise ValueError("run needs a command: the argument vector is empty")
        command = shlex.join(words)
        safe_again = is_read_only(words) if retry is None else retry
        for attempt in (1, 2):
            transport = self._transport()
            try:
                channel = transport.open_session(timeout=timeout)
            except (paramiko.SSHException, EOFError, OSError) as error:
                self._drop(transport)
                if attempt == 2:
                    raise failure_from(error, self._what) from error
                continue  # the command never started: always safe to try again
            try:
                return self._execute(channel, transport, words, command, timeout, stdin)
            except _Lost as lost:
                self._drop(transport)
                if attempt == 2 or not safe_again:
                    raise SshFailure(
                        "lost",
                        f"the connection to {self._what} was lost while running `{command}`; "
                        "it may or may not have run",
                        "Check its effect (e.g. squeue for a submitted job) before running it "
                        "again; the connection is re-established on the next use",
                    ) from lost
        raise SshFailure("lost", f"could not run `{command}` on {self._what}")  # not reached

    def _execute(
        self,
        channel: Any,
        transport: Any,
        argv: list[str],
        command: str,
        timeout: float,
        stdin: str | None,
    ) -> RemoteResult:
        stdout: list[bytes] = []
        stderr: list[bytes] = []
        deadline = time.monotonic() + timeout
        try:
            channel.exec_command(command)
            if stdin is not None:
                channel.sendall(stdin.encode("utf-8"))
            channel.shutdown_write()
            while True:
                busy = _drain(channel, stdout, stderr)
                if channel.exit_status_ready() and not busy:
                    break
                if time.monotonic() > deadline:
                    raise SshFailure(
                        "timeout",
                        f"`{command}` did not finish on {self._what} within {timeout:g} s",
                        "Give it a longer timeout, or check the cluster's load",
                    )
                if not busy:
                    time.sleep(POLL_S)
            _drain(channel, stdout, stderr)
            exit_code = int(channel.recv_exit_status())
            if exit_code == -1 and _died(transport):  # closed without an exit status
                raise _Lost(command)
        except (OSError, paramiko.SSHException, EOFError) as error:
            raise _Lost(command) from error
        finally:
            channel.close()
        return RemoteResult(
            host=self._name,
            argv=tuple(argv),
            exit_code=exit_code,
            stdout=b"".join(stdout).decode("utf-8", errors="replace"),
            stderr=b"".join(stderr).decode("utf-8", errors="replace"),
        )

    # -- files ----------------------------------------------------------------------------------
    def home(self) -> str:
        if self._home is None:
            self._home = self._files(lambda sftp: str(sftp.normalize(".")))
        return self._home

    def read_text(self, path: str, offset: int = 0, limit: int = 1_000_000) -> str:
        where = self._absolute(path)
        return self._files(lambda sftp: transfer.read_text(sftp, where, offset, limit))

    def write_text(self, path: str, text: str, mode: int = 0o644) -> None:
        where = self._absolute(path)
        self._files(lambda sftp: transfer.write_bytes(sftp, where, text.encode("utf-8"), mode))

    def download(self, remote: str, local: Path) -> Path:
        where = self._absolute(remote)
        return self._files(lambda sftp: transfer.download(sftp, where, Path(local)))

    def upload(self, local: Path, remote: str) -> None:
        if not Path(local).exists():
            raise FileNotFoundError(errno.ENOENT, f"no such local file or folder: {local}")
        where = self._absolute(remote)
        self._files(lambda sftp: transfer.upload(sftp, Path(local), where))

    def _absolute(self, path: str) -> str:
        """`~` and `~/...` as the remote home (SFTP does not expand them)."""
        if path == "~" or path.startswith("~/"):
            return self.home() + path[1:]
        return path

    def _files(self, operation: Callable[[paramiko.SFTPClient], T]) -> T:
        """`operation` on the connection's SFTP session, once more after a reconnect."""
        for attempt in (1, 2):
            transport = None
            try:
                transport, sftp = self._sftp_session()
                with self._sftp_lock:  # one transfer at a time; commands go on meanwhile
                    return operation(sftp)
            except (paramiko.SSHException, EOFError, OSError) as error:
                if isinstance(error, OSError) and _file_fault(error, transport):
                    raise transfer.file_error(error, self._name) from error
                self._drop(transport)
                if attempt == 2:
                    raise failure_from(error, self._what) from error
        raise SshFailure("lost", f"file transfer with {self._what} failed")  # not reached

    def _sftp_session(self) -> tuple[Any, paramiko.SFTPClient]:
        with self._lock:
            transport = self._transport()
            if self._sftp is None:
                self._sftp = paramiko.SFTPClient.from_transport(transport)
            return transport, self._sftp


def _file_fault(error: OSError, transport: Any) -> bool:
    """An error of the file itself (missing, not allowed), the connection being fine."""
    if isinstance(error, TimeoutError | ConnectionError):
        return False
    return transport is not None and bool(transport.is_active())


def _drain(channel: Any, stdout: list[bytes], stderr: list[bytes]) -> bool:
    """Read what the command has written so far; whether there was anything."""
    busy = False
    while channel.recv_ready():
        stdout.append(channel.recv(65536))
        busy = True
    while channel.recv_stderr_ready():
        stderr.append(channel.recv_stderr(65536))
        busy = True
    return busy


def _died(transport: Any, settle_s: float = 0.5) -> bool:
    """Whether the connection is gone. paramiko closes the channels before it marks the
    transport inactive, so a channel closed without an exit status gives it a moment."""
    deadline = time.monotonic() + settle_s
    while transport.is_active():
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S)
    return True
