"""The SLURM queue view against the real cluster (tests/rigs/slurm_cluster.py) over real SSH: a
person submits a job from the form and watches it run to COMPLETED with its output in the log
pane, cancels a job (asked first), filters by host and by user, and a broken host is said in
words. A picture of the view is kept in $WORKBENCH_TEST_ARTIFACTS (else tests/artifacts/) under
hpc-queue/."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.hpc.conftest import HOST
from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench_plugins.hpc.config import HostProfile, HpcSettings
from workbench_plugins.hpc.slurm.client import SlurmClient
from workbench_plugins.hpc.slurm.jobs import JobRow, JobState
from workbench_plugins.hpc.slurm.script import JobSpec, render_script
from workbench_plugins.hpc.ssh.pool import SshPool
from workbench_plugins.hpc.views import QueueView, queue_view
from workbench_plugins.hpc.views.job_table import STATE_COLOURS, STATE_COLUMN
from workbench_plugins.hpc.views.queue_view import ALL_HOSTS, EVERYONE, MINE

JOB_WAIT_MS = 90_000


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


def open_view(qtbot: QtBot, context: AppContext, settings: HpcSettings) -> QueueView:
    context.settings = context.settings.with_plugin("hpc", settings)
    view = queue_view(context)
    assert isinstance(view, QueueView)
    qtbot.addWidget(view)
    view.resize(1000, 640)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.poller.polls >= 1, timeout=30_000)
    return view


def shown(view: QueueView, name: str) -> list[JobRow]:
    return [row for row in view.model.rows() if row.name == name]


def state_of(view: QueueView, name: str) -> JobState | None:
    rows = shown(view, name)
    return rows[0].state if rows else None


def answer(view: QueueView, qtbot: QtBot, name: str, button: QMessageBox.StandardButton) -> None:
    qtbot.waitUntil(lambda: view.question is not None)
    box = view.question
    assert box is not None and box.objectName() == name
    box.button(button).click()
    qtbot.waitUntil(lambda: view.question is None)


def submit_outside(pool: SshPool, name: str, seconds: int) -> str:
    """A job someone submitted without the view (a long sleep)."""
    client = SlurmClient(pool.shell(HOST))
    script = render_script(JobSpec(name=name, command=["sleep", str(seconds)], time_limit="5"))
    return client.submit(script, f"{client.shell.home()}/qv-jobs")


def test_submit_from_the_form_runs_to_completed_with_its_output(
    qtbot: QtBot, context: AppContext, hpc_settings: HpcSettings, ssh_pool: SshPool
) -> None:
    view = open_view(qtbot, context, hpc_settings)
    view.open_submit_form()
    form = view.form
    assert form is not None
    partition = form.partition.findData(hpc_settings.hosts[0].partition)
    assert partition >= 0, "the partitions come from sinfo"
    form.partition.setCurrentIndex(partition)
    form.name.setText("qv-hello")
    form.command.setText(
        "bash -c 'echo hello-from-the-queue-view; sleep 4; echo done-$SLURM_JOB_ID'"
    )
    form.accept()
    answer(view, qtbot, "confirm-hpc-submit", QMessageBox.StandardButton.Yes)

    qtbot.waitUntil(lambda: bool(shown(view, "qv-hello")), timeout=JOB_WAIT_MS)
    job_id = shown(view, "qv-hello")[0].job_id
    submits = context.store.tool_calls("submit_slurm_job")
    assert [(call["caller"], call["ok"]) for call in submits] == [("gui", True)]
    assert submits[0]["result"] and submits[0]["result"]["job_id"] == job_id, "the tool submitted"
    assert view.selected_key() == (HOST, job_id), "the submitted job is selected to follow it"
    qtbot.waitUntil(lambda: state_of(view, "qv-hello") == JobState.COMPLETED, timeout=JOB_WAIT_MS)
    qtbot.waitUntil(lambda: f"done-{job_id}" in view.log_pane.toPlainText(), timeout=JOB_WAIT_MS)
    log = view.log_pane.toPlainText()
    assert log.count("hello-from-the-queue-view") == 1, "the log is appended, never repeated"
    assert "qv-hello" not in view.problem.text() and not view.problem.isVisible()

    row = view.model.row_of((HOST, job_id))
    cell = view.model.index(row, STATE_COLUMN)
    assert cell.data() == "COMPLETED"
    background = view.model.data(cell, 8)  # Qt.BackgroundRole
    assert background.color() == QColor(STATE_COLOURS[JobState.COMPLETED])
    outside = SlurmClient(ssh_pool.shell(HOST)).states([job_id])
    assert outside[job_id].state == JobState.COMPLETED, "Slurm itself says so"

    running_id = submit_outside(ssh_pool, "qv-running", 60)  # a second colour in the picture
    qtbot.waitUntil(lambda: state_of(view, "qv-running") == JobState.RUNNING, timeout=JOB_WAIT_MS)
    view.select((HOST, job_id))
    qtbot.wait(200)
    picture = artifact_folder("hpc-queue") / "queue-view.png"
    assert view.grab().save(str(picture))
    assert picture.stat().st_size > 0
    SlurmClient(ssh_pool.shell(HOST)).cancel(running_id)
    view.close()
    qtbot.waitUntil(lambda: running_tasks() == 0)


def test_cancel_asks_first_and_cancels_on_yes(
    qtbot: QtBot, context: AppContext, hpc_settings: HpcSettings, ssh_pool: SshPool
) -> None:
    job_id = submit_outside(ssh_pool, "qv-cancel-me", 120)
    view = open_view(qtbot, context, hpc_settings)
    qtbot.waitUntil(lambda: state_of(view, "qv-cancel-me") == JobState.RUNNING, timeout=JOB_WAIT_MS)
    view.select((HOST, job_id))

    view.cancel_button.click()
    answer(view, qtbot, "confirm-hpc-cancel", QMessageBox.StandardButton.No)
    assert "not cancelled" in view.message.text()
    client = SlurmClient(ssh_pool.shell(HOST))
    assert client.states([job_id])[job_id].state == JobState.RUNNING, "No sends nothing"

    view.cancel_button.click()
    answer(view, qtbot, "confirm-hpc-cancel", QMessageBox.StandardButton.Yes)
    qtbot.waitUntil(
        lambda: state_of(view, "qv-cancel-me") == JobState.CANCELLED, timeout=JOB_WAIT_MS
    )
    assert client.states([job_id])[job_id].state == JobState.CANCELLED
    cancels = context.store.tool_calls("cancel_slurm_job")
    assert [call["arguments"]["job_id"] for call in cancels] == [job_id], "one cancel, after Yes"
    view.close()
    qtbot.waitUntil(lambda: running_tasks() == 0)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_filters_by_host_and_user_and_says_what_failed(
    qtbot: QtBot, context: AppContext, hpc_settings: HpcSettings, ssh_pool: SshPool
) -> None:
    local = hpc_settings.hosts[0]
    other = local.model_copy(update={"name": "other"})
    broken = HostProfile(
        name="broken", hostname="127.0.0.1", port=closed_port(), user=local.user,
        key_file=local.key_file,
    )  # fmt: skip
    settings = hpc_settings.model_copy(update={"hosts": [local, other, broken]})
    mine_id = submit_outside(ssh_pool, "qv-mine", 60)
    theirs = ssh_pool.shell(HOST).run(
        ["sbatch", "--parsable", "--uid=nobody", "--hold", "-J", "qv-theirs", "-t", "2",
         "--wrap", "sleep 60"]
    )  # fmt: skip
    theirs_id = theirs.check("sbatch as nobody").stdout.strip()  # held: listed, never run

    view = open_view(qtbot, context, settings)
    view.user_filter.setCurrentText(EVERYONE)
    qtbot.waitUntil(lambda: len(shown(view, "qv-theirs")) == 2, timeout=JOB_WAIT_MS)
    assert {row.host for row in shown(view, "qv-mine")} == {HOST, "other"}

    view.host_filter.setCurrentText(HOST)
    assert {row.host for row in view.model.rows()} == {HOST}
    view.user_filter.setCurrentText(MINE)
    names = {row.name for row in view.model.rows()}
    assert "qv-mine" in names and "qv-theirs" not in names
    assert {row.user for row in view.model.rows()} == {local.user}
    view.host_filter.setCurrentText(ALL_HOSTS)
    view.user_filter.setCurrentText(EVERYONE)
    assert {row.job_id for row in shown(view, "qv-theirs")} == {theirs_id}

    assert view.problem.isVisible()
    assert view.problem.text().startswith("broken:"), view.problem.text()
    assert "Traceback" not in view.problem.text() and view.problem.toolTip()
    qtbot.wait(200)
    assert view.grab().save(str(artifact_folder("hpc-queue") / "queue-view-hosts.png"))
    client = SlurmClient(ssh_pool.shell(HOST))
    for job_id in (mine_id, theirs_id):
        client.cancel(job_id)
    view.close()
    qtbot.waitUntil(lambda: running_tasks() == 0)
