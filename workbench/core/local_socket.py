"""Private places for this user's local (Unix) sockets, and one listener per data folder.

The printer host and the desktop app's approval prompt each listen on a Unix socket that only
this user's processes may reach: the socket sits in a private (0700) runtime folder, named after
the data folder, in $XDG_RUNTIME_DIR or else in a per-user folder of the temporary directory. An
exclusive lock file beside the socket says which process listens, so a second one learns who
does instead of stealing the socket; `serve_unix_socket` then listens (LocalServer). Every
failure here is a RuntimeFolderError whose message says what was wrong and what to do; `purpose`
(a phrase such as "approval requests") names the use in it. Callers turn it into their own error
type with `raising_as`.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
import socket
import stat
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from workbench.core.paths import AppPaths

SUN_PATH_BYTES = 107  # sockaddr_un.sun_path is 108 bytes with its terminating NUL
FOLDER_PREFIX = "workbench-"
OWNER_BYTES = 4096  # what a lock file says about its holder: one line
LISTEN_BACKLOG = 16
ACCEPT_RETRY_S = 1.0
log = logging.getLogger(__name__)
OnConnection = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class RuntimeFolderError(RuntimeError):
    """A runtime folder or socket path cannot be used (not private, not ours, too long)."""


class LockHeld(RuntimeError):
    """Another process holds the lock; `owner` says which (its process id and command)."""

    def __init__(self, owner: str) -> None:
        super().__init__(f"{owner} holds the lock")
        self.owner = owner


@contextlib.contextmanager
def raising_as(
    error_type: Callable[[str], Exception], *, held: Callable[[str], Exception] | None = None
) -> Iterator[None]:
    """The caller's own errors, the ones its callers catch: a RuntimeFolderError inside becomes
    `error_type(its message)`, a LockHeld `held(its owner)` (when given)."""
    try:
        yield
    except RuntimeFolderError as error:
        raise error_type(str(error)) from error
    except LockHeld as error:
        if held is None:
            raise
        raise held(error.owner) from None


# -- where --------------------------------------------------------------------------------------
def runtime_folder(paths: AppPaths, *, create: bool, purpose: str) -> Path:
    """This data folder's private runtime folder: in $XDG_RUNTIME_DIR, else in a per-user folder
    of the temporary directory; named after the data folder, so WORKBENCH_HOME moves it. Clients
    pass create=False: they only look (verify_private checks what they find)."""
    base_text = os.environ.get("XDG_RUNTIME_DIR", "")
    base = Path(base_text) if base_text and Path(base_text).is_dir() else None
    if base is None:
        base = Path(tempfile.gettempdir()) / f"{FOLDER_PREFIX}{os.getuid()}"
        if create:
            private_folder(base, purpose=purpose)
    digest = hashlib.sha256(str(paths.data_dir.resolve()).encode()).hexdigest()[:16]
    folder = base / f"{FOLDER_PREFIX}{digest}"
    if create:
        private_folder(folder, purpose=purpose)
    return folder


def private_folder(folder: Path, *, purpose: str) -> None:
    """Make `folder` (mode 0700), or check that the existing one is ours and private."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    check_private(folder, purpose=purpose)


def check_private(folder: Path, *, purpose: str) -> None:
    """RuntimeFolderError unless `folder` is a real folder (no link) of this user, mode 0700."""
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise RuntimeFolderError(
            f"{folder} is not a private folder of this user (mode 0700), so Workbench does not "
            f"use it for {purpose}. Remove it, or set XDG_RUNTIME_DIR to a private folder."
        )


def verify_private(socket_file: Path, *, purpose: str) -> None:
    """Before talking to a socket: its Workbench folders, where they exist, are private and
    ours, so no other user can stand in for the process listening there."""
    for folder in (socket_file.parent, socket_file.parent.parent):
        if folder.name.startswith(FOLDER_PREFIX) and folder.exists():
            check_private(folder, purpose=purpose)


def check_socket_path_length(path: Path, *, purpose: str) -> Path:
    """`path`, when a Unix socket can live there (its path fits sockaddr_un)."""
    size = len(os.fsencode(path))
    if size > SUN_PATH_BYTES:
        raise RuntimeFolderError(
            f"The socket path {path} for {purpose} is {size} bytes; Unix sockets allow "
            f"{SUN_PATH_BYTES}. Set XDG_RUNTIME_DIR (or TMPDIR) to a shorter folder."
        )
    return path


async def serve_unix_socket(
    socket_file: Path, on_connection: OnConnection, *, limit: int
) -> LocalServer:
    """Serve `on_connection` on a Unix socket at `socket_file` (mode 0600), lines up to `limit`
    bytes. A file left there by a listener that died is replaced: call it holding the
    ProcessLock, so nobody lives behind that file."""
    socket_file.unlink(missing_ok=True)
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listening.bind(str(socket_file))  # inside the 0700 folder: only we reach it meanwhile
        os.chmod(socket_file, 0o600)
        listening.listen(LISTEN_BACKLOG)
        listening.setblocking(False)
        return LocalServer(listening, on_connection, limit=limit)
    except BaseException:
        listening.close()
        raise


class LocalServer:
    """Each client of a listening Unix socket served by `on_connection` in a task of its own,
    until `close`, which cancels every connection's task (each then closes its connection).

    Not asyncio.Server: on Python 3.11 a connection it accepts just as it closes is left open
    with no handler (Server._attach asserts), and that client then waits forever for an answer.
    Here a connection is a tracked task from the moment it is accepted."""

    def __init__(
        self, listening: socket.socket, on_connection: OnConnection, *, limit: int
    ) -> None:
        self._listening = listening
        self._on_connection = on_connection
        self._limit = limit
        self._loop = asyncio.get_running_loop()
        self._bare_sockets: dict[asyncio.Task[None], socket.socket] = {}  # not yet in a transport
        self._connections: set[asyncio.Task[None]] = set()
        self._loop.add_reader(listening.fileno(), self._accept)

    @property
    def closed(self) -> bool:
        return self._listening.fileno() == -1

    def close(self) -> None:
        """Stop listening, now, and cancel every connection's task (on the server's loop)."""
        if not self.closed:
            self._loop.remove_reader(self._listening.fileno())
            self._listening.close()
        for task in self._connections:
            task.cancel()

    def _accept(self) -> None:
        for _ in range(LISTEN_BACKLOG):
            try:
                connection, _address = self._listening.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError as error:  # out of file descriptors, say: try again in a while
                log.warning("accepting on %s failed: %s", self._listening.getsockname(), error)
                self._loop.remove_reader(self._listening.fileno())
                self._loop.call_later(ACCEPT_RETRY_S, self._resume_accepting)
                return
            connection.setblocking(False)
            task = self._loop.create_task(self._serve(connection))
            self._bare_sockets[task] = connection
            self._connections.add(task)
            task.add_done_callback(self._finished)

    def _resume_accepting(self) -> None:
        if not self.closed:
            self._loop.add_reader(self._listening.fileno(), self._accept)

    async def _serve(self, connection: socket.socket) -> None:
        reader, writer = await asyncio.open_unix_connection(sock=connection, limit=self._limit)
        task = asyncio.current_task()
        if task is not None:  # the transport owns it now, and closes it (after flushing)
            del self._bare_sockets[task]
        try:
            await self._on_connection(reader, writer)
        finally:
            writer.close()

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._connections.discard(task)
        connection = self._bare_sockets.pop(task, None)
        if connection is not None:  # cancelled before a transport took it over
            connection.close()
        if not task.cancelled() and task.exception() is not None:
            log.error("a connection on %s failed", self._socket_name, exc_info=task.exception())

    @property
    def _socket_name(self) -> str:
        return "a closed socket" if self.closed else str(self._listening.getsockname())


# -- who ----------------------------------------------------------------------------------------
def this_process() -> str:
    """How a lock file (and the printer host's `hello`) names this process to people."""
    program = Path(sys.argv[0]).name
    if program in ("__main__.py", "-c", ""):  # python -m workbench
        program = "workbench"
    command = " ".join([program, *sys.argv[1:]])[:160]
    return f"process {os.getpid()} ({command})"


class ProcessLock:
    """An exclusive lock on the file `path` (beside a socket) that says which process holds it.

    `claim` takes it or raises LockHeld naming the holder; `release` removes the file, then
    drops the lock, and removes the folder when that leaves it empty. A file left by a process
    that died is locked by nobody, so the next claim simply takes it."""

    def __init__(self, path: Path, *, purpose: str) -> None:
        self.path = path
        self.purpose = purpose
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def claim(self) -> None:
        """Take the lock (any thread); LockHeld(owner) when another process holds it."""
        if self._fd is not None:
            return
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except FileNotFoundError:  # the last holder just removed the emptied folder
                private_folder(self.path.parent, purpose=self.purpose)
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = os.read(fd, OWNER_BYTES).decode(errors="replace").strip()
                os.close(fd)
                raise LockHeld(owner or "another process") from None
            if _same_file(fd, self.path):
                break
            os.close(fd)  # the holder removed the file between our open and lock: again
        os.ftruncate(fd, 0)
        os.write(fd, this_process().encode())
        self._fd = fd

    def release(self) -> None:
        """Remove the lock file, then drop the lock (claim checks it locked the current file)."""
        if self._fd is None:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = None
        with contextlib.suppress(OSError):  # empty now (nobody else listens here): leave nothing
            self.path.parent.rmdir()


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False
