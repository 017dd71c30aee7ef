"""Doctor checks of the HPC plugin: paramiko, and every configured cluster really reached.

A host is "ok" only after a real SSH login (host key checked against known_hosts, never trusted
here without a person confirming it) and `sinfo --version` answering on it; the line then shows
the Slurm version. Otherwise it says what failed (DNS, refused, timeout, host key, login, no
Slurm) and what to do. The hosts are checked side by side, so one slow host costs one timeout.
"""

from __future__ import annotations

import concurrent.futures
from typing import TYPE_CHECKING

from workbench.core.doctor import Check, CheckResult, module_check
from workbench.core.settings import SettingsError
from workbench_plugins.hpc.config import HpcSettings, settings_of
from workbench_plugins.hpc.ssh.errors import SshFailure
from workbench_plugins.hpc.ssh.pool import SshPool

if TYPE_CHECKING:
    from workbench.core.context import AppContext

SINFO_TIMEOUT_S = 20.0
NOT_ON_PATH = (
    "Slurm's commands are not on the PATH of a non-interactive login there: load them in "
    "~/.bashrc before its interactive-only part, or use the cluster's login node"
)
HOW_TO_ADD = (
    "add one under [[plugins.hpc.hosts]] in the settings file (name, hostname, user, key_file), "
    "or as user@host[:port] in ssh_hosts"
)


def check_hosts(context: AppContext) -> list[CheckResult]:
    """One line per configured host (the plugin's profiles and the app's `ssh_hosts`)."""
    try:
        settings = settings_of(context)
    except SettingsError as invalid:  # the message names the field and what to fix
        return [CheckResult("ssh hosts", "fail", f"not checked: {invalid}")]
    return check_settings(settings)


def check_settings(settings: HpcSettings) -> list[CheckResult]:
    names = [host.name for host in settings.hosts]
    if not names:
        return [CheckResult("ssh hosts", "ok", f"none configured; {HOW_TO_ADD}")]
    with concurrent.futures.ThreadPoolExecutor(min(8, len(names))) as workers:
        return list(workers.map(lambda name: check_host(settings, name), names))


def check_host(settings: HpcSettings, name: str) -> CheckResult:
    """Log in to `name` and ask for Slurm's version; the line says what happened."""
    line = f"ssh host {name}"
    with SshPool(settings) as pool:  # no confirm: the doctor never trusts a new host key
        try:
            shell = pool.shell(name)
            result = shell.run(["sinfo", "--version"], timeout=SINFO_TIMEOUT_S)
        except SshFailure as failure:
            return CheckResult(line, "fail", f"{_label(failure)}: {failure.reason}", failure.advice)
    if not result.ok:
        said = (result.stderr or result.stdout).strip() or f"exit {result.exit_code}"
        missing = result.exit_code == 127 or "not found" in said
        return CheckResult(
            line,
            "fail",
            f"no Slurm: logged in, but `sinfo --version` failed ({said})",
            NOT_ON_PATH
            if missing
            else "Check the cluster's Slurm setup (slurmctld) with its admins",
        )
    return CheckResult(line, "ok", f"{result.stdout.strip()} on {shell.where}")


def _label(failure: SshFailure) -> str:
    return {
        "dns": "DNS",
        "refused": "refused",
        "timeout": "timeout",
        "host_key_unknown": "unknown host key",
        "host_key_changed": "host key changed",
        "auth": "login failed",
        "no_slurm": "no Slurm",
        "lost": "connection lost",
    }.get(failure.kind, "failed")


def checks() -> list[Check]:
    return [module_check("paramiko", "paramiko", "pip install paramiko"), check_hosts]
