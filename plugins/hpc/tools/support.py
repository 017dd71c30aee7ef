"""What every HPC tool shares: the app's SSH pool and job tracker, the host a call means, and
failures turned into messages a person or an agent can act on.

One `HpcServices` per app context (as printing keeps one PrinterManager per app): its pool holds
one SSH connection per host, its tracker follows the jobs in that context's workspace store. It
is rebuilt when the HPC settings change (a host added in Settings is used by the next call).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Iterator

from workbench.core.tool_host import ToolHost
from workbench.core.tools import ToolFailure
from workbench_plugins.hpc.config import HostProfile, HpcSettings
from workbench_plugins.hpc.remote import RemoteCommandFailed, RemoteShell
from workbench_plugins.hpc.slurm.client import SlurmClient, SlurmError
from workbench_plugins.hpc.slurm.tracker import JobTracker
from workbench_plugins.hpc.ssh.errors import SshFailure
from workbench_plugins.hpc.ssh.pool import SshPool
from workbench_plugins.hpc.ssh.profiles import resolve_host

log = logging.getLogger(__name__)

# A status call's poll: how long the answer waits for it, and the longest one Slurm command of it
# may run (squeue keeps retrying a controller that is down for its MessageTimeout and more).
REFRESH_WAIT_S = 8.0
REFRESH_COMMAND_TIMEOUT_S = 20.0

NO_HOST = (
    "No HPC host is configured. Add one in Settings > HPC (name, hostname, user, key file), or "
    "add a Host entry to ~/.ssh/config and pass its name as host."
)


class HpcServices:
    """The SSH pool and job tracker of one app context."""

    def __init__(self, app: ToolHost, settings: HpcSettings) -> None:
        self.app = app
        self.settings = settings
        self.pool = SshPool(settings)  # no confirm: an unknown host key is refused, with advice
        self.tracker = JobTracker(app.store, self.pool.shell, publish=app.bus.publish)
        self._refreshing: dict[str, threading.Thread] = {}
        self._refresh_lock = threading.Lock()

    def host(self, requested: str | None) -> str:
        """The host a call means: the one named, else the first configured."""
        if requested and requested.strip():
            return requested.strip()
        if self.settings.hosts:
            return self.settings.hosts[0].name
        raise ToolFailure(NO_HOST, hint="Ask the engineer to add a cluster host, then call again.")

    def profile(self, host: str) -> HostProfile:
        return resolve_host(host, self.settings)

    def shell(self, host: str) -> RemoteShell:
        return self.pool.shell(host)

    def client(self, host: str) -> SlurmClient:
        return SlurmClient(self.shell(host))

    def remote_root(self, host: str) -> str:
        """The profile's remote_root made absolute on the cluster (Slurm does not expand ~)."""
        root = self.profile(host).remote_root or "~/workbench"
        return self.client(host).absolute(root).rstrip("/")

    def python(self, host: str) -> str:
        """The remote python that has workbench installed ("" in the profile: the same path as
        this process's interpreter, as on a cluster sharing the file system)."""
        return self.profile(host).python or sys.executable

    def refresh(self, host: str, wait_s: float = REFRESH_WAIT_S) -> bool:
        """Poll `host`'s jobs; whether the poll ended within `wait_s` seconds.

        The poll runs in a thread of its own, so an outage (a connect timeout, reconnect backoff,
        squeue waiting for a controller that is down) costs a caller `wait_s` at most; calls
        during one outage share the poll under way instead of stacking new ones.
        """
        with self._refresh_lock:
            poll = self._refreshing.get(host)
            if poll is None or not poll.is_alive():
                poll = threading.Thread(
                    target=self._poll_quietly, args=(host,), name=f"hpc-refresh-{host}", daemon=True
                )
                self._refreshing[host] = poll
                poll.start()
        poll.join(wait_s)
        return not poll.is_alive()

    def _poll_quietly(self, host: str) -> None:
        try:
            self.tracker.poll([host], timeout=REFRESH_COMMAND_TIMEOUT_S)
        except Exception:  # the caller sees the job not refreshed; the cause goes to the log
            log.exception("refreshing the jobs of %s failed", host)

    def close(self) -> None:
        self.pool.close()


_lock = threading.Lock()
_services: dict[int, HpcServices] = {}


def services_for(app: ToolHost) -> HpcServices:
    """This app's services (created on first use, rebuilt after a settings change, closed with
    the app)."""
    settings = app.settings.plugin("hpc", HpcSettings)
    stale: HpcServices | None = None
    with _lock:
        services = _services.get(id(app))
        if services is not None and (services.app is not app or services.settings != settings):
            stale, services = services, None
        if services is None:
            services = HpcServices(app, settings)
            first = id(app) not in _services
            _services[id(app)] = services
            if first:
                app.on_close(lambda: close_services(app))
    if stale is not None:
        stale.close()
    return services


def close_services(app: ToolHost) -> None:
    with _lock:
        services = _services.pop(id(app), None)
    if services is not None:
        services.close()


@contextlib.contextmanager
def remote_errors(host: str) -> Iterator[None]:
    """SSH and remote-command failures as tool failures naming the host and what to do."""
    try:
        yield
    except SshFailure as failure:
        raise ToolFailure(f"{host}: {failure}", hint=failure.advice) from None
    except SlurmError as refused:
        raise ToolFailure(str(refused), hint="Fix what Slurm names, then call again.") from None
    except RemoteCommandFailed as failed:
        raise ToolFailure(
            str(failed), hint="Check the job's arguments and the cluster's state, then retry."
        ) from None
