"""Host keys against the real rig's sshd: an unknown one needs a yes, a changed one never passes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import paramiko
import pytest

from tests.hpc.ssh_support import own_user_home, rig_host_key
from tests.rigs.slurm_cluster import ClusterInfo
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.ssh.errors import HostKeyChanged, UnknownHostKey
from workbench_plugins.hpc.ssh.host_keys import fingerprint
from workbench_plugins.hpc.ssh.pool import SshPool


@pytest.fixture(autouse=True)
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return own_user_home(tmp_path, monkeypatch)


def _known_hosts(settings: HpcSettings, file: str) -> HpcSettings:
    return settings.model_copy(update={"known_hosts": file})


def test_fingerprint_is_openssh_s(slurm_cluster: ClusterInfo) -> None:
    public = Path(slurm_cluster.folder) / "ssh" / "host_ed25519.pub"
    listed = subprocess.run(["ssh-keygen", "-lf", str(public)], capture_output=True, text=True)
    assert fingerprint(rig_host_key(slurm_cluster)) == listed.stdout.split()[1]


def test_unknown_host_is_refused_without_confirmation(
    hpc_settings: HpcSettings, tmp_path: Path, slurm_cluster: ClusterInfo
) -> None:
    file = tmp_path / "fresh" / "known_hosts"
    asked: list[UnknownHostKey] = []

    def say_no(unknown: UnknownHostKey) -> bool:
        asked.append(unknown)
        return False

    for confirm in (None, say_no):
        with (
            SshPool(_known_hosts(hpc_settings, str(file)), confirm) as pool,
            pytest.raises(UnknownHostKey) as refused,
        ):
            pool.shell("local").run(["true"])
        assert refused.value.kind == "host_key_unknown"
        assert refused.value.fingerprint == fingerprint(rig_host_key(slurm_cluster))
        assert refused.value.port == slurm_cluster.ssh_port
        assert not file.exists()  # nothing trusted
    assert [unknown.key_type for unknown in asked] == ["ssh-ed25519"]


def test_confirmed_host_is_remembered_in_the_apps_known_hosts(
    hpc_settings: HpcSettings, workbench_home: Path, slurm_cluster: ClusterInfo
) -> None:
    default = _known_hosts(hpc_settings, "")  # the app's own file, in its data folder
    asked: list[str] = []

    def say_yes(unknown: UnknownHostKey) -> bool:
        asked.append(unknown.fingerprint)
        return True

    with SshPool(default, say_yes) as pool:
        assert pool.shell("local").run(["sinfo", "--version"]).ok
    assert asked == [fingerprint(rig_host_key(slurm_cluster))]
    written = workbench_home / "data" / "ssh" / "known_hosts"
    assert written.read_text().split() == slurm_cluster.host_key_line.split()
    assert written.stat().st_mode & 0o077 == 0

    with SshPool(default) as pool:  # no confirm: the key is known now
        assert pool.shell("local").run(["true"]).ok


def test_changed_host_key_is_refused_naming_both_fingerprints(
    hpc_settings: HpcSettings, tmp_path: Path, slurm_cluster: ClusterInfo
) -> None:
    impostor = paramiko.ECDSAKey.generate()
    file = tmp_path / "known_hosts_changed"
    line = f"[127.0.0.1]:{slurm_cluster.ssh_port} {impostor.get_name()} {impostor.get_base64()}\n"
    file.write_text(line)
    with (
        SshPool(_known_hosts(hpc_settings, str(file)), confirm=lambda _: True) as pool,
        pytest.raises(HostKeyChanged) as refused,
    ):
        pool.shell("local").run(["true"])
    known, offered = fingerprint(impostor), fingerprint(rig_host_key(slurm_cluster))
    assert refused.value.kind == "host_key_changed"
    assert (refused.value.known_fingerprint, refused.value.offered_fingerprint) == (known, offered)
    assert known in str(refused.value) and offered in str(refused.value)
    assert "ssh-keygen -R" in refused.value.advice
    assert file.read_text() == line  # never replaced, even with a confirm that says yes
