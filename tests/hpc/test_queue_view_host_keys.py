"""Trusting an unknown cluster from the queue view, against the real rig over real SSH: the app's
known_hosts starts empty, so the rig is refused; the view offers "Trust this host…", whose dialog
shows host, port, key type and fingerprint. No keeps it refused (file untouched), Yes writes the
rig's key and its jobs appear. A changed key is refused with both fingerprints and never offered.
Pictures in $WORKBENCH_TEST_ARTIFACTS (else tests/artifacts/) under hpc-queue/."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path

import paramiko
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from PySide6.QtWidgets import QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from tests.hpc.conftest import HOST
from tests.rigs.slurm_cluster import ClusterInfo
from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.slurm.client import SlurmClient
from workbench_plugins.hpc.slurm.script import JobSpec, render_script
from workbench_plugins.hpc.ssh.errors import UnknownHostKey
from workbench_plugins.hpc.ssh.host_keys import fingerprint
from workbench_plugins.hpc.ssh.pool import SshPool
from workbench_plugins.hpc.views import QueueView, queue_view
from workbench_plugins.hpc.views.host_trust import TRUST_QUESTION, trust_host_key

WAIT_MS = 60_000


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


def rig_name(cluster: ClusterInfo) -> str:
    return f"[{cluster.host}]:{cluster.ssh_port}"


def rig_key(cluster: ClusterInfo) -> paramiko.PKey:
    entry = paramiko.HostKeys(cluster.known_hosts).lookup(rig_name(cluster))
    assert entry is not None, "the rig's known_hosts names its key"
    return next(iter(entry.values()))


def with_known_hosts(settings: HpcSettings, file: Path, text: str) -> HpcSettings:
    file.write_text(text)
    return settings.model_copy(update={"known_hosts": str(file)})


def open_view(qtbot: QtBot, context: AppContext, settings: HpcSettings) -> QueueView:
    context.settings = context.settings.with_plugin("hpc", settings)
    view = queue_view(context)
    assert isinstance(view, QueueView)
    qtbot.addWidget(view)
    view.resize(1000, 560)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.poller.polls >= 1, timeout=WAIT_MS)
    return view


def trust_button(view: QueueView) -> QPushButton | None:
    return view.problems.buttons.get(HOST)


def open_trust_dialog(view: QueueView, qtbot: QtBot) -> QMessageBox:
    button = trust_button(view)
    assert button is not None and button.isVisible(), view.problem.text()
    assert button.text() == "Trust this host…"
    button.click()
    qtbot.waitUntil(lambda: view.question is not None)
    box = view.question
    assert box is not None and box.objectName() == TRUST_QUESTION
    return box


def close_view(view: QueueView, qtbot: QtBot) -> None:
    view.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=WAIT_MS)


def test_no_leaves_the_host_untrusted_and_the_file_unchanged(
    qtbot: QtBot,
    context: AppContext,
    hpc_settings: HpcSettings,
    slurm_cluster: ClusterInfo,
    tmp_path: Path,
) -> None:
    known_hosts = tmp_path / "app-known_hosts"
    view = open_view(qtbot, context, with_known_hosts(hpc_settings, known_hosts, ""))
    assert view.problem.isVisible() and "not a known host" in view.problem.text()
    assert view.model.rows() == [], "nothing read from a host nobody trusted"

    box = open_trust_dialog(view, qtbot)
    key = rig_key(slurm_cluster)
    shown = box.text()
    for fact in (slurm_cluster.host, str(slurm_cluster.ssh_port), key.get_name()):
        assert fact in shown
    assert fingerprint(key) in shown, "the fingerprint the rig really offers"
    assert "ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub" in shown
    assert box.defaultButton() == box.button(QMessageBox.StandardButton.No)
    qtbot.waitExposed(box)
    qtbot.wait(200)
    folder = artifact_folder("hpc-queue")
    assert box.grab().save(str(folder / "trust-host-dialog.png"))
    assert view.grab().save(str(folder / "trust-host-view.png"))

    box.button(QMessageBox.StandardButton.No).click()
    qtbot.waitUntil(lambda: view.question is None)
    assert "was not trusted" in view.message.text()
    polls = view.poller.polls
    view.refresh()
    qtbot.waitUntil(lambda: view.poller.polls > polls, timeout=WAIT_MS)
    assert known_hosts.read_text() == "", "No writes nothing"
    assert "not a known host" in view.problem.text() and trust_button(view) is not None
    close_view(view, qtbot)


def test_yes_writes_the_rigs_key_and_its_jobs_appear(
    qtbot: QtBot,
    context: AppContext,
    hpc_settings: HpcSettings,
    slurm_cluster: ClusterInfo,
    ssh_pool: SshPool,
    tmp_path: Path,
) -> None:
    client = SlurmClient(ssh_pool.shell(HOST))  # the rig's key known to this pool, not the view
    script = render_script(JobSpec(name="qv-trusted", command=["sleep", "60"], time_limit="3"))
    job_id = client.submit(script, f"{client.shell.home()}/qv-jobs")
    known_hosts = tmp_path / "app-known_hosts"
    view = open_view(qtbot, context, with_known_hosts(hpc_settings, known_hosts, ""))

    box = open_trust_dialog(view, qtbot)
    box.button(QMessageBox.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: job_id in {row.job_id for row in view.model.rows()}, timeout=WAIT_MS)

    written = paramiko.HostKeys(str(known_hosts)).lookup(rig_name(slurm_cluster))
    key = rig_key(slurm_cluster)
    assert written is not None and written.get(key.get_name()) == key, known_hosts.read_text()
    assert len(known_hosts.read_text().splitlines()) == 1, "one line, written once"
    assert not view.problem.isVisible() and trust_button(view) is None
    assert "Trusted local" in view.message.text()
    qtbot.wait(200)
    assert view.grab().save(str(artifact_folder("hpc-queue") / "trust-host-trusted.png"))
    client.cancel(job_id)
    close_view(view, qtbot)


def other_ed25519_key() -> str:
    public = Ed25519PrivateKey.generate().public_key()
    return public.public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    ).decode("ascii")


def test_a_changed_key_is_refused_with_both_fingerprints_and_no_trust_button(
    qtbot: QtBot,
    context: AppContext,
    hpc_settings: HpcSettings,
    slurm_cluster: ClusterInfo,
    tmp_path: Path,
) -> None:
    key = rig_key(slurm_cluster)
    assert key.get_name() == "ssh-ed25519", "the impostor key below must be of the same type"
    impostor = other_ed25519_key()
    known_hosts = tmp_path / "app-known_hosts"
    line = f"{rig_name(slurm_cluster)} {impostor}\n"
    view = open_view(qtbot, context, with_known_hosts(hpc_settings, known_hosts, line))

    text = view.problem.text()
    known_print = fingerprint(paramiko.Ed25519Key(data=base64.b64decode(impostor.split()[1])))
    assert "has changed" in text and known_print in text and fingerprint(key) in text, text
    assert trust_button(view) is None and not view.problems.buttons
    assert known_hosts.read_text() == line, "a known key is never replaced"
    assert view.grab().save(str(artifact_folder("hpc-queue") / "changed-host-key.png"))
    close_view(view, qtbot)


def test_a_refusal_without_its_key_is_trusted_only_for_the_confirmed_fingerprint(
    hpc_settings: HpcSettings, slurm_cluster: ClusterInfo, tmp_path: Path
) -> None:
    """Without the key on the refusal, trusting connects once and accepts exactly the confirmed
    fingerprint: another one (an impostor in between) is refused and nothing is written."""
    known_hosts = tmp_path / "app-known_hosts"
    settings = with_known_hosts(hpc_settings, known_hosts, "")
    key = rig_key(slurm_cluster)
    host, port = slurm_cluster.host, slurm_cluster.ssh_port
    wrong = UnknownHostKey(host, port, key.get_name(), "SHA256:" + "A" * 43)
    with pytest.raises(UnknownHostKey):
        trust_host_key(settings, HOST, wrong)
    assert known_hosts.read_text() == "", "a fingerprint nobody confirmed is never written"

    trust_host_key(settings, HOST, UnknownHostKey(host, port, key.get_name(), fingerprint(key)))
    written = paramiko.HostKeys(str(known_hosts)).lookup(rig_name(slurm_cluster))
    assert written is not None and written.get(key.get_name()) == key


def test_a_refusal_carrying_its_key_is_written_once(
    hpc_settings: HpcSettings, slurm_cluster: ClusterInfo, tmp_path: Path
) -> None:
    known_hosts = tmp_path / "app-known_hosts"
    settings = with_known_hosts(hpc_settings, known_hosts, "")
    key = rig_key(slurm_cluster)
    refusal = UnknownHostKey(
        slurm_cluster.host, slurm_cluster.ssh_port, key.get_name(), fingerprint(key), key=key
    )
    trust_host_key(settings, HOST, refusal)
    trust_host_key(settings, HOST, refusal)  # a second Yes (two views) adds no second line
    written = paramiko.HostKeys(str(known_hosts)).lookup(rig_name(slurm_cluster))
    assert written is not None and written.get(key.get_name()) == key
    assert len(known_hosts.read_text().splitlines()) == 1
