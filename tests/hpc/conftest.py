"""The HPC tests' cluster: one real Slurm cluster and sshd on 127.0.0.1 for the whole session
(tests/rigs/slurm_cluster.py), and per test a host profile and an SSH pool pointing at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.rigs.slurm_cluster import ClusterInfo, SlurmCluster, require_slurm_rig

if TYPE_CHECKING:
    from workbench.core.context import AppContext
    from workbench_plugins.hpc.config import HpcSettings
    from workbench_plugins.hpc.ssh.pool import SshPool

HOST = "local"  # the host profile's name in the tests


@pytest.fixture(scope="session")
def slurm_rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlurmCluster]:
    """The running cluster itself, for tests that restart its controller or drop connections."""
    require_slurm_rig()
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm-rig"))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def slurm_cluster(slurm_rig: SlurmCluster) -> ClusterInfo:
    return slurm_rig.info()


@pytest.fixture
def hpc_settings(slurm_cluster: ClusterInfo, tmp_path: Path) -> HpcSettings:
    """One host profile named "local" for the rig; the rig's host key already known; an empty
    ~/.ssh/config of the test's own, so the user's real one never leaks in."""
    from workbench_plugins.hpc.config import HostProfile, HpcSettings

    ssh_config = tmp_path / "ssh_config"
    ssh_config.write_text("")
    known_hosts = tmp_path / "known_hosts"
    known_hosts.write_text(Path(slurm_cluster.known_hosts).read_text())
    profile = HostProfile(
        name=HOST,
        hostname=slurm_cluster.host,
        port=slurm_cluster.ssh_port,
        user=slurm_cluster.user,
        key_file=slurm_cluster.key_file,
        remote_root=str(tmp_path / "remote"),
        partition=slurm_cluster.partition,
    )
    return HpcSettings(
        hosts=[profile], ssh_config=str(ssh_config), known_hosts=str(known_hosts), poll_seconds=1.0
    )


@pytest.fixture
def ssh_pool(hpc_settings: HpcSettings) -> Iterator[SshPool]:
    from workbench_plugins.hpc.ssh.pool import SshPool

    pool = SshPool(hpc_settings)
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def hpc_app(workbench_home: Path, hpc_settings: HpcSettings) -> Iterator[AppContext]:
    """The app with the rig as its one configured host."""
    from workbench.core.context import AppContext

    app = AppContext.open()
    app.settings.plugins["hpc"] = hpc_settings.model_dump(mode="json")
    yield app
    app.close()
