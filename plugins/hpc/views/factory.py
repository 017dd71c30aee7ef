"""The queue view on an app context: the app's SSH pool and job tracker (the ones the HPC tools
use, so a job the agent submits shows here), the HPC settings' hosts, poll interval and
known_hosts (where a host the person trusts from the view is written)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from workbench.core.context import AppContext
from workbench.ui.bridge import subscribe_in_gui
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.events import SlurmJobsUpdated
from workbench_plugins.hpc.remote import RemoteShell
from workbench_plugins.hpc.slurm.jobs import TrackedJob
from workbench_plugins.hpc.tools.support import services_for
from workbench_plugins.hpc.views.actions import QueueActions, actions_for
from workbench_plugins.hpc.views.host_form import HostForm
from workbench_plugins.hpc.views.host_trust import HostTrust
from workbench_plugins.hpc.views.queue_source import QueueSource
from workbench_plugins.hpc.views.queue_view import QueueView


def queue_view(context: AppContext, actions: QueueActions | None = None) -> QWidget:
    """The view; `actions` replaces the HPC tools for Submit and Cancel (default: the tools when
    registered, else the Slurm client)."""

    def settings() -> HpcSettings:
        return context.settings.plugin("hpc", HpcSettings)

    # Called on the poll worker only: building the pool or connecting never blocks the GUI.
    def shells(host: str) -> RemoteShell:
        return services_for(context).shell(host)

    def tracked() -> list[TrackedJob]:
        return services_for(context).tracker.tracked()

    def hosts() -> list[str]:
        return [profile.name for profile in settings().hosts]

    source = QueueSource(shells, tracked)
    view = QueueView(
        source,
        hosts,
        actions or actions_for(context, shells),
        settings().poll_seconds,
        HostTrust(settings),
        lambda parent: HostForm(context, parent),
    )
    subscribe_in_gui(
        context.bus, SlurmJobsUpdated, lambda event: view.merge_tracked(event.jobs), view
    )
    return view
