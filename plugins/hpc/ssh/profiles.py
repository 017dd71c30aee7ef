"""A host name to everything needed to reach it: the profile merged with ~/.ssh/config.

OpenSSH's rule: options given for this connection win over the config file, and within the file
the first value found for an option wins (paramiko.SSHConfig reads it the same way, `Host` and
`Match` blocks, wildcards, `%h`-style tokens included). Here the profile's non-empty fields are
the options given; the config fills in the rest. A name that only ~/.ssh/config knows works too.
"""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path

import paramiko

from workbench_plugins.hpc.config import DEFAULT_PORT, HostProfile, HpcSettings
from workbench_plugins.hpc.ssh.errors import SshFailure

MAX_JUMPS = 8  # a loop of aliases jumping through each other ends here
_JUMP = re.compile(
    r"^(?:ssh://)?(?:(?P<user>[^@\s]+)@)?(?P<host>\[[^\]]+\]|[^@\s:]+)(?::(?P<port>\d+))?$"
)


def read_ssh_config(settings: HpcSettings) -> paramiko.SSHConfig:
    """The OpenSSH client config the settings name (empty when there is none)."""
    path = settings.ssh_config_file()
    if path is None or not path.is_file():
        return paramiko.SSHConfig()
    try:
        return paramiko.SSHConfig.from_path(str(path))
    except (OSError, paramiko.ConfigParseError) as error:
        raise SshFailure(
            "other",
            f"cannot read the SSH config {path}: {error}",
            "Fix the file (`ssh -G HOST` shows what OpenSSH makes of it) or set ssh_config in "
            "[plugins.hpc] to another file (empty: none)",
        ) from error


def resolve_host(name: str, settings: HpcSettings) -> HostProfile:
    """The profile called `name` completed from ~/.ssh/config: hostname, port, user, key_file
    and jump_host filled in (jump_host as OpenSSH's ProxyJump: hops separated by commas)."""
    return _resolve(name, settings, read_ssh_config(settings))


def _resolve(name: str, settings: HpcSettings, config: paramiko.SSHConfig) -> HostProfile:
    profile = settings.profile(name)
    if profile is None:
        if not _config_names(config, name):
            known = ", ".join(host.name for host in settings.hosts) or "none"
            raise SshFailure(
                "other",
                f"no host profile or ~/.ssh/config Host is called {name!r} (profiles: {known})",
                "Add it under [[plugins.hpc.hosts]] (name, hostname, user, key_file) or as a "
                "Host block in ~/.ssh/config",
            )
        profile = HostProfile(name=name)
    # OpenSSH looks the config up by the name typed on the command line
    found = config.lookup(profile.hostname or name)
    identity = _first_identity(found.get("identityfile", []))
    jump = profile.jump_host or str(found.get("proxyjump", ""))
    return profile.model_copy(
        update={
            # the typed name (profile hostname, else its name) is mapped by HostName, as `ssh`
            "hostname": str(found.get("hostname", profile.hostname or name)),
            "port": profile.port or int(found.get("port", DEFAULT_PORT)),
            "user": profile.user or str(found.get("user", "")) or getpass.getuser(),
            "key_file": os.path.expanduser(profile.key_file or identity),
            "jump_host": "" if jump.lower() == "none" else jump,
        }
    )


def jump_profiles(profile: HostProfile, settings: HpcSettings) -> list[HostProfile]:
    """The hops to go through to reach `profile`, the first one first (each resolved itself,
    with the jumps of a hop that has its own ProxyJump before it)."""
    config = read_ssh_config(settings)
    hops: list[HostProfile] = []
    _add_hops(profile.jump_host, settings, config, hops, seen={profile.name})
    return hops


def _add_hops(
    jump: str,
    settings: HpcSettings,
    config: paramiko.SSHConfig,
    hops: list[HostProfile],
    seen: set[str],
) -> None:
    for entry in [part.strip() for part in jump.split(",") if part.strip()]:
        if entry in seen or len(hops) >= MAX_JUMPS:
            raise SshFailure(
                "other",
                f"the jump hosts loop or go too deep at {entry!r} ({' -> '.join(seen)})",
                "Fix ProxyJump / jump_host so that the chain of jump hosts ends",
            )
        hop = _jump_profile(entry, settings, config)
        _add_hops(hop.jump_host, settings, config, hops, seen | {entry})
        hops.append(hop)


def _jump_profile(entry: str, settings: HpcSettings, config: paramiko.SSHConfig) -> HostProfile:
    """A jump host given as a profile name, a config Host, or `[user@]host[:port]`."""
    if settings.profile(entry) is not None or _config_names(config, entry):
        return _resolve(entry, settings, config)
    found = _JUMP.match(entry)
    if found is None:
        raise SshFailure(
            "other",
            f"cannot read the jump host {entry!r}",
            "Write it as a host profile name, a ~/.ssh/config Host, or user@host:port",
        )
    host = found["host"].strip("[]")
    port = int(found["port"]) if found["port"] else None
    # no hostname: the config is looked up by `host` and its HostName applies, as for `ssh host`
    partial = HostProfile(name=host, user=found["user"] or "", port=port)
    resolved = _resolve(host, settings.model_copy(update={"hosts": [partial]}), config)
    return resolved.model_copy(update={"name": entry})


def _config_names(config: paramiko.SSHConfig, name: str) -> bool:
    """Whether a `Host` line of the config names `name` itself (not only through `*`)."""
    patterns = config.get_hostnames()
    return name in patterns


def _first_identity(files: list[str]) -> str:
    """OpenSSH tries each IdentityFile in turn; the first that exists is the one used here."""
    expanded = [os.path.expanduser(file) for file in files]
    return next((file for file in expanded if Path(file).is_file()), expanded[0] if files else "")
