"""Private runtime folders, socket paths and the one-listener lock (workbench.core.local_socket),
shared by the printer host and the desktop app's approval prompt."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.core.approvals import ApprovalsUnavailable, approvals_socket
from workbench.core.local_socket import (
    LockHeld,
    ProcessLock,
    RuntimeFolderError,
    check_socket_path_length,
    private_folder,
    raising_as,
    runtime_folder,
    serve_unix_socket,
    this_process,
    verify_private,
)
from workbench.core.paths import AppPaths, app_paths
from workbench_plugins.printing.host.protocol import socket_path

PURPOSE = "the tests' socket"
NOBODY = 65534


@pytest.fixture
def paths() -> AppPaths:
    return app_paths()


@pytest.fixture
def runtime_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("run")  # short: socket paths must fit 107 bytes
    folder.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    return folder


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_the_runtime_folder_is_private_named_after_the_data_folder_and_shared(
    paths: AppPaths, runtime_dir: Path
) -> None:
    looked = runtime_folder(paths, create=False, purpose=PURPOSE)
    assert looked.parent == runtime_dir and looked.name.startswith("workbench-")
    assert not looked.exists()  # only looking makes nothing
    made = runtime_folder(paths, create=True, purpose=PURPOSE)
    assert made == looked and mode_of(made) == 0o700
    # the printer host and the approval prompt meet in that one folder
    assert socket_path(paths).parent == made
    assert approvals_socket(paths).parent == made
    elsewhere = AppPaths(paths.config_dir, paths.data_dir / "other", paths.cache_dir)
    assert runtime_folder(elsewhere, create=False, purpose=PURPOSE) != made


def test_without_a_runtime_dir_a_private_per_user_folder_of_tmp_is_used(
    paths: AppPaths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "missing"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = runtime_folder(paths, create=True, purpose=PURPOSE)
    base = tmp_path / f"workbench-{os.getuid()}"
    assert folder.parent == base
    assert mode_of(base) == 0o700 and mode_of(folder) == 0o700


def test_a_folder_others_can_enter_is_refused_with_what_to_do(
    paths: AppPaths, runtime_dir: Path
) -> None:
    folder = runtime_folder(paths, create=False, purpose=PURPOSE)
    folder.mkdir(mode=0o700)
    folder.chmod(0o755)  # as if someone had made it readable for all
    with pytest.raises(RuntimeFolderError) as refused:
        runtime_folder(paths, create=True, purpose=PURPOSE)
    message = str(refused.value)
    assert f"{folder} is not a private folder of this user (mode 0700)" in message
    assert f"does not use it for {PURPOSE}" in message and "XDG_RUNTIME_DIR" in message
    with pytest.raises(RuntimeFolderError, match="not a private folder"):
        verify_private(folder / "approvals.sock", purpose=PURPOSE)
    assert mode_of(folder) == 0o755  # refused, not "repaired" behind the user's back


def test_a_folder_of_another_user_or_a_link_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = tmp_path / "workbench-theirs"
    theirs.mkdir(mode=0o700)
    real_uid = os.getuid()
    with monkeypatch.context() as patch:
        if real_uid == 0:
            os.chown(theirs, NOBODY, NOBODY)  # really another user's
        else:  # only root can give a folder away: be another user instead
            patch.setattr(os, "getuid", lambda: real_uid + 1)
        with pytest.raises(RuntimeFolderError, match="not a private folder of this user"):
            private_folder(theirs, purpose=PURPOSE)
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    link = tmp_path / "workbench-link"
    link.symlink_to(mine)  # someone else's link could point anywhere
    with pytest.raises(RuntimeFolderError, match="not a private folder"):
        verify_private(link / "printers.sock", purpose=PURPOSE)


def test_verify_private_looks_only_at_workbench_folders_that_exist(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    verify_private(shared / "some.sock", purpose=PURPOSE)  # not ours to judge
    verify_private(tmp_path / "workbench-gone" / "some.sock", purpose=PURPOSE)


def test_a_socket_path_too_long_is_named_with_what_to_do(tmp_path: Path) -> None:
    fits = tmp_path / "a.sock"
    assert check_socket_path_length(fits, purpose=PURPOSE) == fits
    long = tmp_path / ("x" * 120) / "a.sock"
    with pytest.raises(RuntimeFolderError) as refused:
        check_socket_path_length(long, purpose=PURPOSE)
    assert f"for {PURPOSE} is {len(os.fsencode(long))} bytes" in str(refused.value)
    assert "Unix sockets allow 107" in str(refused.value)


def test_raising_as_gives_callers_their_own_errors(tmp_path: Path) -> None:
    with (
        pytest.raises(ApprovalsUnavailable, match="Unix sockets allow") as converted,
        raising_as(ApprovalsUnavailable),
    ):
        check_socket_path_length(tmp_path / ("y" * 120), purpose=PURPOSE)
    assert isinstance(converted.value.__cause__, RuntimeFolderError)

    class Served(RuntimeError):
        pass

    with pytest.raises(Served, match="process 1 "), raising_as(ApprovalsUnavailable, held=Served):
        raise LockHeld("process 1 (workbench)")
    # no conversion asked for: it stays what it is
    with pytest.raises(LockHeld), raising_as(ApprovalsUnavailable):
        raise LockHeld("process 1 (workbench)")


HOLDER = """
import sys
from pathlib import Path
from workbench.core.local_socket import ProcessLock
ProcessLock(Path(sys.argv[1]), purpose="a test").claim()
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin or kills us
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """Another process that holds the lock at tmp_path/run/x.lock."""
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    lock_file = folder / "x.lock"
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "held"
            yield process, lock_file
        finally:
            process.kill()
            process.wait(10)


def test_a_lock_held_by_another_process_names_it_and_a_stale_one_is_reclaimed(
    holder: tuple[subprocess.Popen[str], Path],
) -> None:
    process, lock_file = holder
    lock = ProcessLock(lock_file, purpose=PURPOSE)
    with pytest.raises(LockHeld) as held:
        lock.claim()
    assert held.value.owner.startswith(f"process {process.pid} (")
    assert not lock.held
    process.kill()  # died without releasing: its file stays, locked by nobody
    process.wait(10)
    assert lock_file.exists()
    lock.claim()
    assert lock.held and lock_file.read_text() == this_process()
    lock.release()
    assert not lock_file.exists() and not lock_file.parent.exists()  # emptied: removed


def test_release_keeps_a_folder_someone_else_still_uses(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    lock = ProcessLock(folder / "a.lock", purpose=PURPOSE)
    lock.claim()  # the folder was missing (the last holder removed it): made private
    assert mode_of(folder) == 0o700
    (folder / "other.sock").touch()
    lock.release()
    assert not (folder / "a.lock").exists() and folder.exists()
    lock.release()  # twice is harmless


def test_this_process_names_its_id_and_command() -> None:
    assert this_process().startswith(f"process {os.getpid()} (")


def test_a_served_socket_is_0600_replaces_a_stale_file_and_answers(tmp_path: Path) -> None:
    socket_file = tmp_path / "echo.sock"
    socket_file.write_text("left by a listener that died")

    async def round_trip() -> bytes:
        server = await serve_unix_socket(socket_file, echo, limit=1024)
        assert stat.S_ISSOCK(socket_file.stat().st_mode) and mode_of(socket_file) == 0o600
        try:
            reader, writer = await asyncio.open_unix_connection(str(socket_file))
            writer.write(b"hello\n")
            line = await reader.readline()
            writer.close()
            return line
        finally:
            server.close()

    assert asyncio.run(round_trip()) == b"hello\n"


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(await reader.readline())
    await writer.drain()


@pytest.mark.filterwarnings(  # a socket left for the garbage collector to close fails it
    "error::ResourceWarning", "error::pytest.PytestUnraisableExceptionWarning"
)
def test_closing_ends_every_connection_even_one_accepted_that_instant(tmp_path: Path) -> None:
    """asyncio.Server (Python 3.11) leaves a connection accepted as it closes open with no
    handler, and its client waits forever; here each client hears the end at once."""
    socket_file = tmp_path / "s.sock"
    served: list[str] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served.append("started")
        await reader.read()  # until the client or close() ends it

    async def scenario() -> tuple[bytes, bytes]:
        server = await serve_unix_socket(socket_file, hold, limit=1024)
        talking = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        talking.connect(str(socket_file))
        while not served:  # a connection with its handler running
            await asyncio.sleep(0.01)
        arriving = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        arriving.connect(str(socket_file))
        server._accept()  # accepted, its task not yet started: the moment asyncio.Server fails
        server.close()
        assert server.closed
        await asyncio.sleep(0.1)  # the loop runs the cancellations
        heard = []
        for client in (talking, arriving):
            client.settimeout(5)
            heard.append(client.recv(10))  # b"": the server closed it (a hang would time out)
            client.close()
        assert served == ["started"]  # the one cancelled before it started was never served
        return heard[0], heard[1]

    assert asyncio.run(scenario()) == (b"", b"")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as late, pytest.raises(OSError):
        late.connect(str(socket_file))  # nobody listens any more
