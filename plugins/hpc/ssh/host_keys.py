"""Host keys: checked against known_hosts, unknown ones trusted only when someone confirms.

paramiko's RejectPolicy semantics with one way out: a host in no known_hosts file is refused
(`UnknownHostKey`) unless `confirm` (the GUI's dialog, or `--yes` headless) returns True for its
fingerprint; then the key is appended to the app's known_hosts and the connection goes on. A host
whose key differs from the known one is always refused (`HostKeyChanged`, both fingerprints
named); nothing here ever replaces a known key. Fingerprints are written as OpenSSH does:
"SHA256:" and the unpadded base64 of the key blob's SHA-256.
"""

from __future__ import annotations

import base64
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import paramiko

from workbench_plugins.hpc.ssh.errors import HostKeyChanged, UnknownHostKey, known_hosts_name

Confirm = Callable[[UnknownHostKey], bool]
_write_lock = threading.Lock()  # two pools (or hosts) trusting keys at once append whole lines


def fingerprint(key: paramiko.PKey) -> str:
    """The key's SHA256 fingerprint as `ssh-keygen -l` prints it."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


class KnownHosts:
    """The host keys a connection may accept: the app's file (where new keys are written) and,
    read-only, the user's ~/.ssh/known_hosts when the app's default file is in use."""

    def __init__(self, file: Path, user_file: Path | None = None) -> None:
        self.file = file
        self.user_file = user_file

    def load_into(self, client: paramiko.SSHClient) -> None:
        if self.user_file is not None and self.user_file.is_file():
            client.load_system_host_keys(str(self.user_file))
        if self.file.is_file():
            client.load_host_keys(str(self.file))
        # load_host_keys makes SSHClient rewrite the file on save(); keys are appended here only
        client._host_keys_filename = None

    def known_key(self, hostname: str, port: int, key_type: str) -> paramiko.PKey | None:
        """The key known for that host and type, if any (used to name the old fingerprint)."""
        name = known_hosts_name(hostname, port)
        for path in (self.file, self.user_file):
            if path is None or not path.is_file():
                continue
            entry = paramiko.HostKeys(str(path)).lookup(name)
            if entry is not None and key_type in entry:
                return entry[key_type]
        return None

    def append(self, hostname: str, port: int, key: paramiko.PKey) -> None:
        """Write one `host type base64` line to the app's file (created private, 0600)."""
        line = f"{known_hosts_name(hostname, port)} {key.get_name()} {key.get_base64()}\n"
        with _write_lock:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(self.file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(descriptor, "a", encoding="ascii") as handle:
                handle.write(line)


class ConfirmUnknownHost(paramiko.MissingHostKeyPolicy):
    """RejectPolicy, unless `confirm` accepts the fingerprint (then the key is remembered)."""

    def __init__(self, known: KnownHosts, port: int, confirm: Confirm | None) -> None:
        self.known = known
        self.port = port
        self.confirm = confirm

    def missing_host_key(
        self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey
    ) -> None:
        # paramiko passes "[host]:port" for other ports; the bare host is what people recognise
        bare = hostname[1:].split("]:")[0] if hostname.startswith("[") else hostname
        unknown = UnknownHostKey(bare, self.port, key.get_name(), fingerprint(key), key)
        if self.confirm is None or not self.confirm(unknown):
            raise unknown
        self.known.append(bare, self.port, key)
        client.get_host_keys().add(hostname, key.get_name(), key)


def changed_key_failure(
    known: KnownHosts, hostname: str, port: int, error: paramiko.BadHostKeyException
) -> HostKeyChanged:
    """The refusal of a host whose key is not the known one, naming both fingerprints."""
    expected = error.expected_key or known.known_key(hostname, port, error.key.get_name())
    known_print = fingerprint(expected) if expected is not None else "(unreadable)"
    return HostKeyChanged(hostname, port, known_print, fingerprint(error.key), str(known.file))
