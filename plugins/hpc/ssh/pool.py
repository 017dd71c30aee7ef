"""`SshPool`: the app's SSH connections, one per host, shared by the tools, tracker and views.

`pool.shell(name)` gives the host's SshShell (connected on first use, kept, re-established when
it drops); `pool.close()` closes them all. Unknown host keys go to `confirm` (the GUI's dialog,
or `--yes` headless): True trusts the key and writes it to the app's known_hosts; no `confirm`,
or False, refuses the host (UnknownHostKey).
"""

from __future__ import annotations

import threading
from pathlib import Path

from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.ssh.connect import Connection, describe, open_connection
from workbench_plugins.hpc.ssh.connection import SshShell
from workbench_plugins.hpc.ssh.host_keys import Confirm, KnownHosts
from workbench_plugins.hpc.ssh.profiles import jump_profiles, resolve_host


class SshPool:
    def __init__(self, settings: HpcSettings, confirm: Confirm | None = None) -> None:
        self.settings = settings
        self.confirm = confirm
        self._shells: dict[str, SshShell] = {}
        self._lock = threading.Lock()

    def hosts(self) -> list[str]:
        """The configured host profiles' names (a ~/.ssh/config alias also works in `shell`)."""
        return [host.name for host in self.settings.hosts]

    def known_hosts(self) -> KnownHosts:
        """The app's known_hosts file; with the default one, the user's ~/.ssh/known_hosts is
        also believed (read, never written)."""
        user_file = None
        if not self.settings.known_hosts.strip():
            user_file = Path.home() / ".ssh" / "known_hosts"
        return KnownHosts(self.settings.known_hosts_file(), user_file)

    def shell(self, host: str) -> SshShell:
        """The shell of `host` (a profile name or ~/.ssh/config Host). Resolving the name may
        raise SshFailure; the connection itself opens on first use (or `shell.connect()`)."""
        with self._lock:
            found = self._shells.get(host)
            if found is not None:
                return found
            profile = resolve_host(host, self.settings)
            hops = jump_profiles(profile, self.settings)

            def connect() -> Connection:
                return open_connection(profile, hops, self.known_hosts(), self.confirm)

            shell = SshShell(host, describe(profile), connect)
            self._shells[host] = shell
            return shell

    def close(self) -> None:
        with self._lock:
            shells = list(self._shells.values())
            self._shells.clear()
        for shell in shells:
            shell.close()

    def __enter__(self) -> SshPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
