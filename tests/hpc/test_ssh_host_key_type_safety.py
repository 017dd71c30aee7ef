"""A host known under another key type is a changed key, never a first contact (issue 28).

An interceptor offering a key of a type the known_hosts line is not for (a downgrade, or a type
paramiko cannot read, such as ssh-dss or a security-key type, which paramiko skips while reading)
must be refused like any changed key: no question a person could answer yes to, nothing written.

The server is a real SSH server in this process (paramiko's server side) on 127.0.0.1, offering
an ECDSA host key; the client is the plugin's own connection code.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest

from workbench_plugins.hpc.config import HostProfile
from workbench_plugins.hpc.ssh.connect import open_connection
from workbench_plugins.hpc.ssh.errors import HostKeyChanged, SshFailure, UnknownHostKey
from workbench_plugins.hpc.ssh.host_keys import KnownHosts, fingerprint


class _RefuseEveryLogin(paramiko.ServerInterface):
    def get_allowed_auths(self, username: str) -> str:
        return "password"


@pytest.fixture
def server() -> Iterator[tuple[int, paramiko.PKey]]:
    """(the port of an SSH server offering a fresh ECDSA host key, that key)."""
    key = paramiko.ECDSAKey.generate()
    listener = socket.create_server(("127.0.0.1", 0))
    transports: list[paramiko.Transport] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            transport = paramiko.Transport(connection)
            transport.add_server_key(key)
            transports.append(transport)
            with contextlib.suppress(paramiko.SSHException, EOFError, OSError):
                transport.start_server(server=_RefuseEveryLogin())

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1], key
    listener.close()
    for transport in transports:
        transport.close()


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(the app's known_hosts, the user's ~/.ssh/known_hosts), in a home of the test's own."""
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    user = tmp_path / "user-home" / ".ssh" / "known_hosts"
    user.parent.mkdir(parents=True)
    return tmp_path / "app" / "known_hosts", user


def blob_of(key_type: str) -> str:
    """A key blob of `key_type` (its content is never checked: only its type and fingerprint)."""
    name = key_type.encode()
    return base64.b64encode(len(name).to_bytes(4, "big") + name + os.urandom(48)).decode()


def hashed(name: str) -> str:
    """`name` as OpenSSH's HashKnownHosts writes it."""
    salt = os.urandom(20)
    digest = hmac.new(salt, name.encode(), hashlib.sha1).digest()
    return f"|1|{base64.b64encode(salt).decode()}|{base64.b64encode(digest).decode()}"


def connect(port: int, app_file: Path, user_file: Path) -> tuple[list[UnknownHostKey], Exception]:
    """Connect as the plugin does, with a person who would say yes: (what they were asked, the
    failure; the server refuses every login, so there always is one)."""
    asked: list[UnknownHostKey] = []

    def say_yes(unknown: UnknownHostKey) -> bool:
        asked.append(unknown)
        return True

    profile = HostProfile(name="lab", hostname="127.0.0.1", port=port, user="engineer")
    with pytest.raises(SshFailure) as failed:
        open_connection(profile, [], KnownHosts(app_file, user_file), say_yes, timeout=10)
    return asked, failed.value


@pytest.mark.parametrize(
    ("known_type", "where"),
    [
        ("ssh-dss", "user"),  # an old cluster's key: paramiko no longer reads the type
        ("sk-ssh-ed25519@openssh.com", "user"),  # a security-key type paramiko cannot read
        ("ssh-dss", "app"),
        ("ssh-rsa", "app"),  # a type paramiko reads (it refuses that one itself)
    ],
)
def test_a_host_known_under_another_key_type_is_refused_as_changed(
    server: tuple[int, paramiko.PKey],
    files: tuple[Path, Path],
    known_type: str,
    where: str,
) -> None:
    port, offered = server
    app_file, user_file = files
    blob = blob_of(known_type)
    if known_type == "ssh-rsa":
        blob = paramiko.RSAKey.generate(2048).get_base64()
    line = f"[127.0.0.1]:{port} {known_type} {blob}\n"
    written = user_file if where == "user" else app_file
    written.parent.mkdir(parents=True, exist_ok=True)
    written.write_text(line)
    asked, failure = connect(port, app_file, user_file)
    assert asked == []  # no question a person could say yes to
    assert isinstance(failure, HostKeyChanged) and failure.kind == "host_key_changed"
    known_print = "SHA256:" + base64.b64encode(
        hashlib.sha256(base64.b64decode(blob)).digest()
    ).decode().rstrip("=")
    assert failure.known_fingerprint == known_print
    assert failure.offered_fingerprint == fingerprint(offered)
    assert written.read_text() == line
    assert not app_file.exists() or app_file.read_text() == (line if where == "app" else "")


def test_a_hashed_host_name_is_recognised(
    server: tuple[int, paramiko.PKey], files: tuple[Path, Path]
) -> None:
    port, _ = server
    app_file, user_file = files
    user_file.write_text(f"{hashed(f'[127.0.0.1]:{port}')} ssh-dss {blob_of('ssh-dss')}\n")
    asked, failure = connect(port, app_file, user_file)
    assert asked == [] and isinstance(failure, HostKeyChanged)
    assert "ssh-dss" in str(failure) and "ecdsa-sha2-nistp256" in str(failure)


def test_a_host_known_nowhere_is_still_a_first_contact(
    server: tuple[int, paramiko.PKey], files: tuple[Path, Path]
) -> None:
    """Only the host itself counts: the same address on another port is another host."""
    port, offered = server
    app_file, user_file = files
    user_file.write_text(f"[127.0.0.1]:{port + 1} ssh-dss {blob_of('ssh-dss')}\n")
    asked, failure = connect(port, app_file, user_file)
    assert [unknown.fingerprint for unknown in asked] == [fingerprint(offered)]
    assert not isinstance(failure, HostKeyChanged)  # the login itself failed afterwards
