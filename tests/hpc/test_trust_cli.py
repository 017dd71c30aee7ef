"""Headless host-key trust (`python -m workbench_plugins.hpc.trust HOST [--yes]`) against the real
sshd of the test cluster: nothing is written without a yes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rigs.slurm_cluster import ClusterInfo
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.ssh.errors import UnknownHostKey
from workbench_plugins.hpc.trust import asking, trust


def _unknown(hpc_settings: HpcSettings) -> Path:
    known_hosts = Path(hpc_settings.known_hosts)
    known_hosts.write_text("")
    return known_hosts


def test_a_no_answer_trusts_nothing(
    hpc_settings: HpcSettings, capsys: pytest.CaptureFixture[str]
) -> None:
    known_hosts = _unknown(hpc_settings)
    with pytest.raises(UnknownHostKey):
        trust(hpc_settings, "local", asking(lambda prompt: "n", assume_yes=False))
    assert known_hosts.read_text() == ""
    assert "SHA256:" in capsys.readouterr().out  # the fingerprint was shown before asking


def test_yes_writes_the_key_once_and_the_next_connection_asks_nothing(
    hpc_settings: HpcSettings, slurm_cluster: ClusterInfo
) -> None:
    known_hosts = _unknown(hpc_settings)
    said = trust(hpc_settings, "local", asking(lambda prompt: "yes", assume_yes=False))
    assert said.startswith("local: connected")
    rig_key = slurm_cluster.host_key_line.split()[2]
    assert known_hosts.read_text().count(rig_key) == 1

    def never(unknown: UnknownHostKey) -> bool:
        raise AssertionError(f"asked again about {unknown.fingerprint}")

    trust(hpc_settings, "local", never)
    assert known_hosts.read_text().count(rig_key) == 1


def test_assume_yes_trusts_without_asking(hpc_settings: HpcSettings) -> None:
    known_hosts = _unknown(hpc_settings)

    def no_terminal(prompt: str) -> str:
        raise AssertionError("--yes must not ask")

    trust(hpc_settings, "local", asking(no_terminal, assume_yes=True))
    assert known_hosts.read_text().strip() != ""
