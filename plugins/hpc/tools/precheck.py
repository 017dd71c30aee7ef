"""Whether a cluster call could run at all, checked before a person is asked to confirm it: the
host it means (named, else the script's, else the first configured) must be a host profile or a
Host of ~/.ssh/config. Nothing is connected to; the registry runs this as the tool's precheck."""

from __future__ import annotations

import json

from workbench.core.tools import ConfirmationNeeded, ToolContext, ToolFailure
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.ssh.errors import SshFailure
from workbench_plugins.hpc.ssh.profiles import resolve_host
from workbench_plugins.hpc.tools.jobs import SIDECAR_SUFFIX, SubmitArgs
from workbench_plugins.hpc.tools.support import NO_HOST


def submit_precheck(args: SubmitArgs, context: ToolContext) -> None:
    """ToolFailure when the host the job would go to is not configured."""
    settings = context.app.settings.plugin("hpc", HpcSettings)
    host = (args.host or "").strip() or _script_host(args, context)
    if not host:
        if not settings.hosts:
            raise ToolFailure(NO_HOST, hint="Ask the engineer to add a cluster host.")
        host = settings.hosts[0].name
    try:
        resolve_host(host, settings)
    except SshFailure as failure:
        raise ToolFailure(
            f"the cluster host {host!r} is not configured: {failure.reason}",
            hint=f"{failure.advice}; or pass the name of a configured host.",
        ) from None


def _script_host(args: SubmitArgs, context: ToolContext) -> str:
    """The host generate_training_command wrote the script for ("" when unknown)."""
    try:  # outside the workspace: not read without a person's yes (the tool's own rule)
        script = context.file(args.script_path, mode="read")
        sidecar = json.loads(script.with_suffix(SIDECAR_SUFFIX).read_text())
    except (OSError, ValueError, ToolFailure, ConfirmationNeeded):  # the tool says what's wrong
        return ""
    return str(sidecar.get("host") or "") if isinstance(sidecar, dict) else ""
