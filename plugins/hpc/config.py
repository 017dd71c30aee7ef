"""The HPC plugin's settings ([plugins.hpc]); passwords and key passphrases are in the keyring.

A cluster is a `HostProfile`: a name people use and how to reach it (address, port, user, key,
jump host), each field optional when the user's ~/.ssh/config says it (ssh/profiles.py merges
the two the way OpenSSH does: what the profile sets wins). Profiles come from
`[[plugins.hpc.hosts]]`; a bare `user@host[:port]` in the app's `ssh_hosts` list becomes a
profile with defaults (`settings_of`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

from workbench.core.paths import app_paths
from workbench.core.settings import refuse_url_credentials

if TYPE_CHECKING:
    from workbench.core.context import AppContext

PLUGIN = "hpc"
DEFAULT_PORT = 22
_BARE_HOST = re.compile(r"^(?:(?P<user>[^@\s]+)@)?(?P<host>[^@\s:]+)(?::(?P<port>\d+))?$")


def password_entry(user: str, hostname: str, port: int | None) -> str:
    """The keyring entry (service `workbench`) of an SSH password, as the core settings name it."""
    where = f"{user}@{hostname}" if user else hostname
    if port and port != DEFAULT_PORT:
        where += f":{port}"
    return f"ssh:{where}:password"


def passphrase_entry(key_file: str) -> str:
    """The keyring entry of a private key's passphrase: one per key file, by absolute path."""
    return f"ssh:key:{Path(key_file).expanduser().resolve()}:passphrase"


class HostProfile(BaseModel):
    """One cluster login node: how to reach it, and where the plugin works on it."""

    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    name: str = Field(..., min_length=1, description="What you call it (or a ~/.ssh/config Host)")
    hostname: str = Field("", description="Address (empty: ~/.ssh/config's HostName, or the name)")
    port: int | None = Field(None, gt=0, lt=65536, description="SSH port (empty: config, or 22)")
    user: str = Field("", description="Login (empty: ~/.ssh/config's User, or yours)")
    key_file: str = Field("", description="Private key (empty: ~/.ssh/config, ssh-agent, ~/.ssh)")
    jump_host: str = Field(
        "", description="Jump host: a profile, a ~/.ssh/config Host or user@host:port"
    )
    remote_root: str = Field(
        "~/workbench", description="Where scripts, logs and outputs go on the cluster"
    )
    python: str = Field(
        "", description="The cluster's python with workbench installed (empty: same path as here)"
    )
    partition: str = Field("", description="Default Slurm partition (empty: the cluster's)")

    @model_validator(mode="after")
    def _no_password(self) -> HostProfile:
        for field in ("hostname", "jump_host"):
            refuse_url_credentials(getattr(self, field), f"ssh_hosts ({field} of {self.name})")
        return self

    @property
    def address(self) -> str:
        """user@host:port as far as known (for messages)."""
        text = f"{self.user}@{self.hostname or self.name}" if self.user else self.hostname
        return f"{text or self.name}:{self.port or DEFAULT_PORT}"

    @property
    def password_entry(self) -> str:
        return password_entry(self.user, self.hostname or self.name, self.port)


class HpcSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    hosts: list[HostProfile] = Field(
        default_factory=list,
        description="Clusters, each with its own address and access",
        json_schema_extra={
            "editor": "workbench_plugins.hpc.views.host_form:open_host_form",
            "edited_in": "the SLURM queue's Add a host… form",
        },
    )
    ssh_config: str = Field(
        "~/.ssh/config", description="OpenSSH client config read for Host aliases (empty: none)"
    )
    known_hosts: str = Field(
        "", description="known_hosts file (empty: the app's own, in its data folder)"
    )
    poll_seconds: float = Field(10.0, gt=0, description="How often running jobs are polled")

    @model_validator(mode="after")
    def _unique_names(self) -> HpcSettings:
        names = [host.name for host in self.hosts]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"host profiles need distinct names; twice: {', '.join(twice)}")
        return self

    def profile(self, name: str) -> HostProfile | None:
        """The profile called `name`, or None (the name may still be a ~/.ssh/config Host)."""
        return next((host for host in self.hosts if host.name == name), None)

    def with_bare_hosts(self, addresses: Sequence[str]) -> HpcSettings:
        """These settings plus a profile for each `user@host[:port]` no profile already names."""
        hosts = list(self.hosts)
        known = {host.name for host in hosts}
        for address in addresses:
            address = address.strip()
            found = _BARE_HOST.match(address)
            if not address or address in known or found is None:
                continue
            port = int(found["port"]) if found["port"] else None
            hosts.append(
                HostProfile(
                    name=address, hostname=found["host"], user=found["user"] or "", port=port
                )
            )
            known.add(address)
        return self.model_copy(update={"hosts": hosts})

    def known_hosts_file(self) -> Path:
        """Where host keys are checked and newly trusted ones written."""
        if self.known_hosts.strip():
            return Path(os.path.expanduser(self.known_hosts.strip()))
        return app_paths().data_dir / "ssh" / "known_hosts"

    def ssh_config_file(self) -> Path | None:
        return Path(os.path.expanduser(self.ssh_config)) if self.ssh_config.strip() else None


def settings_of(context: AppContext) -> HpcSettings:
    """The plugin's settings with the app's `ssh_hosts` folded in (SettingsError if invalid)."""
    settings = context.settings.plugin(PLUGIN, HpcSettings)
    return settings.with_bare_hosts(context.settings.ssh_hosts)
