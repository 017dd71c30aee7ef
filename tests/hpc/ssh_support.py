"""Helpers of the SSH tests: a user home of the test's own, keys made with paramiko."""

from __future__ import annotations

import base64
from pathlib import Path

import paramiko
import pytest

from tests.rigs.slurm_cluster import ClusterInfo


def own_user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME in the test's folder: the real ~/.ssh (config, known_hosts, keys) never leaks in."""
    home = tmp_path / "user-home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)  # no agent offering other keys
    return home


def rig_host_key(cluster: ClusterInfo) -> paramiko.PKey:
    """The rig sshd's host key, from its known_hosts line."""
    _, key_type, blob = cluster.host_key_line.split()
    return paramiko.PKey.from_type_string(key_type, base64.b64decode(blob))


def new_key_file(path: Path, passphrase: str | None = None) -> paramiko.PKey:
    """A fresh ECDSA key written to `path` (encrypted when a passphrase is given)."""
    key = paramiko.ECDSAKey.generate()
    key.write_private_key_file(str(path), password=passphrase)
    path.chmod(0o600)
    return key
