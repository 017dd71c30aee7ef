"""`workbench doctor`'s HPC lines against the real rig: a real login and `sinfo --version`."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.hpc.ssh_support import own_user_home
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.doctor_checks import check_hosts, check_settings


@pytest.fixture(autouse=True)
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_user_home(tmp_path, monkeypatch)


def test_reachable_cluster_is_ok_with_its_slurm_version(
    context: object, hpc_settings: HpcSettings
) -> None:
    from workbench.core.context import AppContext

    assert isinstance(context, AppContext)
    context.settings = context.settings.with_plugin("hpc", hpc_settings)
    [line] = check_hosts(context)
    assert (line.name, line.level) == ("ssh host local", "ok")
    assert "slurm" in line.detail and "22.05" in line.detail, line.detail


def test_wrong_port_says_refused_and_what_to_do(hpc_settings: HpcSettings) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    profile = hpc_settings.hosts[0].model_copy(update={"port": port})
    [line] = check_settings(hpc_settings.model_copy(update={"hosts": [profile]}))
    assert line.level == "fail"
    assert line.detail.startswith("refused:") and "port" in line.fix


def test_unknown_host_key_is_not_trusted_by_the_doctor(
    hpc_settings: HpcSettings, tmp_path: Path
) -> None:
    file = tmp_path / "empty_known_hosts"
    [line] = check_settings(hpc_settings.model_copy(update={"known_hosts": str(file)}))
    assert line.level == "fail" and line.detail.startswith("unknown host key:")
    assert "SHA256:" in line.detail and not file.exists()


def test_no_hosts_says_how_to_add_one(context: object) -> None:
    from workbench.core.context import AppContext

    assert isinstance(context, AppContext)
    [line] = check_hosts(context)
    assert (line.name, line.level) == ("ssh hosts", "ok")
    assert "none configured" in line.detail and "[[plugins.hpc.hosts]]" in line.detail
