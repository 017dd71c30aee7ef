"""Host keys: checked against known_hosts, unknown ones trusted only when someone confirms.

paramiko's RejectPolicy semantics with one way out: a host in no known_hosts file is refused
(`UnknownHostKey`) unless `confirm` (the GUI's dialog, or `--yes` headless) returns True for its
fingerprint; then the key is appended to the app's known_hosts and the connection goes on. A host
whose key differs from the known one is always refused (`HostKeyChanged`, both fingerprints
named); nothing here ever replaces a known key. A host known under another key type is such a
host too, never a first contact: paramiko skips the known_hosts lines it cannot read (ssh-dss,
security keys, markers), so the files are read here as text before anyone is asked (a downgrade
to a type the interceptor holds would otherwise be one "yes" away). Fingerprints are written as
OpenSSH does: "SHA256:" and the unpadded base64 of the key blob's SHA-256.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import paramiko

from workbench_plugins.hpc.ssh.errors import HostKeyChanged, UnknownHostKey, known_hosts_name

Confirm = Callable[[UnknownHostKey], bool]
_write_lock = threading.Lock()  # two pools (or hosts) trusting keys at once append whole lines


def fingerprint(key: paramiko.PKey) -> str:
    """The key's SHA256 fingerprint as `ssh-keygen -l` prints it."""
    return blob_fingerprint(key.asbytes())


def blob_fingerprint(blob: bytes) -> str:
    digest = hashlib.sha256(blob).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


@dataclass(frozen=True)
class KnownEntry:
    """A known_hosts line for a host, whatever its key type (read as text, not by paramiko)."""

    key_type: str  # with its marker, if any: "@cert-authority ssh-ed25519"
    fingerprint: str
    file: Path


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

    def entries(self, hostname: str, port: int) -> list[KnownEntry]:
        """Every line of either file that names this host, of any key type."""
        name = known_hosts_name(hostname, port)
        found = []
        for path in (self.file, self.user_file):
            if path is None or not path.is_file():
                continue
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                fields = line.split()
                if not fields or fields[0].startswith("#"):
                    continue
                marker = fields.pop(0) if fields[0].startswith("@") else ""
                if len(fields) >= 3 and _names(fields[0], name):
                    key_type = f"{marker} {fields[1]}".strip()
                    found.append(KnownEntry(key_type, _text_fingerprint(fields[2]), path))
        return found

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
        known = self.known.entries(bare, self.port)
        if known:  # known under another type (or a line paramiko could not read): changed
            raise HostKeyChanged(
                bare,
                self.port,
                known[0].fingerprint,
                fingerprint(key),
                str(known[0].file),
                known_type=known[0].key_type,
                offered_type=key.get_name(),
            )
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
    return HostKeyChanged(
        hostname,
        port,
        known_print,
        fingerprint(error.key),
        str(known.file),
        known_type=expected.get_name() if expected is not None else "",
        offered_type=error.key.get_name(),
    )


def _names(hosts: str, name: str) -> bool:
    """Whether a known_hosts host field (hashed, or patterns with * ? and !) names `name`."""
    if hosts.startswith("|1|"):
        _, _, salt, digest = [*hosts.split("|"), "", ""][:4]
        try:
            mac = hmac.new(base64.b64decode(salt), name.encode(), hashlib.sha1).digest()
        except (binascii.Error, ValueError):
            return False
        return hmac.compare_digest(base64.b64encode(mac).decode("ascii"), digest)
    matched = False
    for pattern in hosts.lower().split(","):
        if _wildcard(pattern.removeprefix("!")).fullmatch(name.lower()):
            if pattern.startswith("!"):
                return False
            matched = True
    return matched


def _wildcard(pattern: str) -> re.Pattern[str]:
    """An OpenSSH host pattern: * and ? are its only wildcards ([host]:port is literal)."""
    return re.compile(
        ".*?".join(".".join(map(re.escape, p.split("?"))) for p in pattern.split("*"))
    )


def _text_fingerprint(blob: str) -> str:
    try:
        return blob_fingerprint(base64.b64decode(blob, validate=True))
    except (binascii.Error, ValueError):
        return "(unreadable)"
