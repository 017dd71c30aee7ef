"""What can go wrong reaching a cluster, in words a person (or the agent) can act on.

Every SSH problem leaves this package as an `SshFailure` with a `kind` (for code: the doctor, the
tracker deciding to retry) and `advice` (for people). `failure_from` turns the exceptions that
socket and paramiko raise into one.
"""

from __future__ import annotations

import socket
from typing import Literal

import paramiko

FailureKind = Literal[
    "dns",
    "refused",
    "timeout",
    "host_key_unknown",
    "host_key_changed",
    "auth",
    "no_slurm",
    "lost",
    "other",
]
# kinds worth another try when re-establishing a connection that worked before
TRANSIENT: frozenset[str] = frozenset({"refused", "timeout", "lost", "other"})
CHECK_PROFILE = "Check the host profile ([plugins.hpc] hosts, or the Host in ~/.ssh/config)"


class SshFailure(RuntimeError):
    """`reason` says what failed, `advice` what to do; str() says both."""

    def __init__(self, kind: FailureKind, reason: str, advice: str = "") -> None:
        super().__init__(f"{reason}. {advice}" if advice else reason)
        self.kind: FailureKind = kind
        self.reason = reason
        self.advice = advice


class UnknownHostKey(SshFailure):
    """A host whose key is in no known_hosts file: trusted only when someone confirms it."""

    def __init__(
        self,
        hostname: str,
        port: int,
        key_type: str,
        fingerprint: str,
        key: paramiko.PKey | None = None,
    ) -> None:
        where = known_hosts_name(hostname, port)
        super().__init__(
            "host_key_unknown",
            f"{where} is not a known host; its {key_type} key is {fingerprint}",
            "Compare the fingerprint with the one the cluster's admins publish (or `ssh-keygen "
            "-lf /etc/ssh/ssh_host_*_key.pub` on it), then accept it: the SLURM queue view's "
            "'Trust this host...' button, or `python -m workbench_plugins.hpc.trust HOST` in a "
            "terminal",
        )
        self.hostname = hostname
        self.port = port
        self.key_type = key_type
        self.fingerprint = fingerprint
        # the offered key itself, so a person's "yes" can be written without connecting again
        self.key = key


class HostKeyChanged(SshFailure):
    """The host offers another key than the one known for it: refused, never overwritten."""

    def __init__(
        self,
        hostname: str,
        port: int,
        known_fingerprint: str,
        offered_fingerprint: str,
        file: str,
        *,
        known_type: str = "",
        offered_type: str = "",
    ) -> None:
        where = known_hosts_name(hostname, port)
        change = f"known {known_fingerprint}, offered {offered_fingerprint}"
        if known_type and known_type != offered_type:  # a new type is a change, not a first contact
            change = (
                f"known as a {known_type} key ({known_fingerprint}), it now offers a "
                f"{offered_type} key ({offered_fingerprint})"
            )
        super().__init__(
            "host_key_changed",
            f"the host key of {where} has changed: {change}; the connection was refused "
            "(someone may be intercepting it)",
            "Ask the cluster's admins whether its host key was replaced; only then remove the "
            f"old line (`ssh-keygen -R '{where}' -f {file}`) and connect again to accept the new "
            "key",
        )
        self.known_fingerprint = known_fingerprint
        self.offered_fingerprint = offered_fingerprint


def known_hosts_name(hostname: str, port: int) -> str:
    """How known_hosts (and OpenSSH's messages) name a host: `host`, or `[host]:port`."""
    return hostname if port == 22 else f"[{hostname}]:{port}"


def failure_from(error: BaseException, what: str, connecting: bool = False) -> SshFailure:
    """`error` (from socket or paramiko while reaching `what`, e.g. "local (root@h:22)");
    `connecting`: while opening the connection (a network error is then no lost connection)."""
    if isinstance(error, SshFailure):
        return error
    if isinstance(error, socket.gaierror):
        return SshFailure(
            "dns",
            f"cannot resolve the address of {what}: {error.strerror or error}",
            f"{CHECK_PROFILE}: the host name is misspelt, or needs a VPN or the site's network",
        )
    if isinstance(error, ConnectionRefusedError | paramiko.ssh_exception.NoValidConnectionsError):
        return SshFailure(
            "refused",
            f"connection to {what} refused: nothing listens for SSH on that port",
            f"{CHECK_PROFILE}: the port, or whether sshd runs there (a login node may be down)",
        )
    if isinstance(error, TimeoutError | socket.timeout):
        return SshFailure(
            "timeout",
            f"{what} did not answer in time",
            "Check the network, VPN or firewall, and the host name and port",
        )
    if isinstance(error, paramiko.PasswordRequiredException):
        return SshFailure("auth", f"the private key for {what} needs its passphrase", "")
    if isinstance(error, paramiko.AuthenticationException):
        return SshFailure(
            "auth",
            f"{what} refused the login: {error}",
            f"{CHECK_PROFILE}: the user and key file; the public key must be in the cluster's "
            "~/.ssh/authorized_keys; a passphrase or password goes in the keyring",
        )
    if connecting and isinstance(error, OSError):
        return SshFailure(
            "other",
            f"cannot connect to {what}: {error.strerror or error}",
            f"{CHECK_PROFILE}, and the network between here and there",
        )
    if isinstance(error, EOFError | ConnectionError | OSError | paramiko.SSHException):
        return SshFailure(
            "lost",
            f"the connection to {what} was lost ({type(error).__name__}: {error})",
            "It is re-established on the next use; if this repeats, check the network",
        )
    return SshFailure("other", f"SSH to {what} failed: {type(error).__name__}: {error}", "")
