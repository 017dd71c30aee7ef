"""Opening one authenticated paramiko connection, through jump hosts when the profile has some.

Each hop is a full SSH login of its own (its host key checked, its key or password used); the
next hop's TCP stream is a `direct-tcpip` channel of the previous one, as OpenSSH's ProxyJump
does. Key passphrases and passwords come from the keyring (or this session's memory:
workbench.core.secrets), never from files.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paramiko

from workbench.core.secrets import SERVICE, SecretUnavailable, get_secret
from workbench_plugins.hpc.config import DEFAULT_PORT, HostProfile, passphrase_entry
from workbench_plugins.hpc.ssh.errors import SshFailure, failure_from
from workbench_plugins.hpc.ssh.host_keys import (
    Confirm,
    ConfirmUnknownHost,
    KnownHosts,
    changed_key_failure,
)

CONNECT_TIMEOUT_S = 10.0
KEEPALIVE_S = 30  # keeps NAT and firewalls from forgetting an idle connection


@dataclass
class Connection:
    """The login to the host itself, and the jump-host logins it runs through."""

    client: paramiko.SSHClient
    jumps: list[paramiko.SSHClient] = field(default_factory=list)

    @property
    def transport(self) -> Any:  # paramiko.Transport (untyped)
        return self.client.get_transport()

    def active(self) -> bool:
        transport = self.transport
        return transport is not None and bool(transport.is_active())

    def close(self) -> None:
        for client in [self.client, *reversed(self.jumps)]:
            # closing a dead connection may raise anything; it is gone either way
            with contextlib.suppress(Exception):
                client.close()


def describe(profile: HostProfile) -> str:
    """How messages name a host: its profile name and where it really is."""
    return f"{profile.name} ({profile.user}@{profile.hostname}:{profile.port or DEFAULT_PORT})"


def open_connection(
    target: HostProfile,
    hops: Sequence[HostProfile],
    known: KnownHosts,
    confirm: Confirm | None,
    timeout: float = CONNECT_TIMEOUT_S,
) -> Connection:
    """A logged-in connection to `target` through `hops` (resolved profiles, first hop first)."""
    logins: list[paramiko.SSHClient] = []
    chain = [*hops, target]
    stream: Any = None
    try:
        for index, profile in enumerate(chain):
            if index > 0:
                stream = _tunnel(logins[-1], chain[index - 1], profile)
            logins.append(_login(profile, stream, known, confirm, timeout))
    except BaseException:
        if logins:
            Connection(logins[-1], logins[:-1]).close()
        raise
    connection = Connection(logins[-1], logins[:-1])
    connection.transport.set_keepalive(KEEPALIVE_S)
    return connection


def _tunnel(through: paramiko.SSHClient, via: HostProfile, to: HostProfile) -> Any:
    """A direct-tcpip channel from the jump host `via` to `to`'s SSH port."""
    destination = (to.hostname, to.port or DEFAULT_PORT)
    try:
        return through.get_transport().open_channel(
            "direct-tcpip", destination, ("127.0.0.1", 0), timeout=CONNECT_TIMEOUT_S
        )
    except (paramiko.SSHException, OSError, EOFError) as error:
        raise SshFailure(
            "refused",
            f"the jump host {describe(via)} could not open a connection to {describe(to)}: {error}",
            "Check the target's address and port as the jump host sees them, and that the jump "
            "host allows forwarding (AllowTcpForwarding)",
        ) from error


def _login(
    profile: HostProfile, stream: Any, known: KnownHosts, confirm: Confirm | None, timeout: float
) -> paramiko.SSHClient:
    port = profile.port or DEFAULT_PORT
    what = describe(profile)
    key = load_private_key(profile)
    password = _secret(profile.password_entry)
    client = paramiko.SSHClient()
    try:
        known.load_into(client)
        client.set_missing_host_key_policy(ConfirmUnknownHost(known, port, confirm))
        if stream is None:
            stream = socket.create_connection((profile.hostname, port), timeout=timeout)
        client.connect(
            profile.hostname,
            port=port,
            username=profile.user,
            password=password,
            pkey=key,
            sock=stream,
            timeout=timeout,
            banner_timeout=timeout,
            auth_timeout=timeout,
            allow_agent=True,
            look_for_keys=key is None,
        )
    except BaseException as error:
        client.close()
        if stream is not None:
            stream.close()
        if isinstance(error, paramiko.BadHostKeyException):
            raise changed_key_failure(known, profile.hostname, port, error) from error
        if isinstance(error, Exception):
            raise failure_from(error, what, connecting=True) from error
        raise
    return client


def load_private_key(profile: HostProfile) -> paramiko.PKey | None:
    """The profile's key file opened (with its passphrase from the keyring); None without one."""
    if not profile.key_file:
        return None
    path = Path(profile.key_file).expanduser()
    entry = passphrase_entry(profile.key_file)
    if not path.is_file():
        raise SshFailure(
            "auth",
            f"the key file {path} of {profile.name} does not exist",
            "Set key_file in the host profile (or IdentityFile in ~/.ssh/config) to your "
            "private key, e.g. ~/.ssh/id_ed25519",
        )
    passphrase = _secret(entry)
    try:
        secret = passphrase.encode("utf-8") if passphrase else None
        return paramiko.PKey.from_path(str(path), password=secret)
    except (paramiko.PasswordRequiredException, TypeError) as error:
        if passphrase:  # a TypeError with a passphrase given is not about a missing one
            raise
        # cryptography says "password was not given but private key is encrypted" as TypeError
        raise SshFailure(
            "auth",
            f"the key file {path} is protected by a passphrase, and none is in the keyring",
            f"Store it: `keyring set {SERVICE} '{entry}'` (or enter it when the app asks; it is "
            "then kept for this session only)",
        ) from error
    except (paramiko.SSHException, ValueError, OSError) as error:
        wrong = "with the passphrase in the keyring" if passphrase else "(not a private key?)"
        raise SshFailure(
            "auth",
            f"cannot open the key file {path} {wrong}: {error}",
            f"Check key_file; a wrong passphrase is replaced with `keyring set {SERVICE} "
            f"'{entry}'`",
        ) from error


def _secret(entry: str) -> str | None:
    """The secret of `entry`, or None when there is none or no keyring to ask."""
    try:
        return get_secret(entry) or None
    except SecretUnavailable:  # no keyring: only session-kept secrets exist, and it had none
        return None
