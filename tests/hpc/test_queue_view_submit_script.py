"""The submit form's partition, time limit and CPUs apply to a script file too, against the real
cluster: set in the form they override the script's own #SBATCH lines (Slurm itself reports the
job's limits); left at "default" the script's own lines decide."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from tests.hpc.conftest import HOST
from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.ssh.pool import SshPool
from workbench_plugins.hpc.views import QueueView, queue_view

WAIT_MS = 60_000
SCRIPT = """#!/bin/bash
# a person's own batch script
#SBATCH --job-name={name}
#SBATCH --time=5
#SBATCH --cpus-per-task=1

echo ran-with-$SLURM_CPUS_PER_TASK-cpus
"""


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


def submit_script(
    view: QueueView, qtbot: QtBot, script: Path, partition: str, time_limit: str, cpus: int
) -> None:
    view.open_submit_form()
    form = view.form
    assert form is not None
    form.script.setText(str(script))
    assert not form.command.isEnabled(), "the script runs, not a command"
    assert form.time_limit.isEnabled() and form.cpus.isEnabled() and form.partition.isEnabled()
    if partition:
        form.partition.setCurrentIndex(form.partition.findData(partition))
    form.time_limit.setText(time_limit)
    form.cpus.setValue(cpus)
    assert form.grab().save(str(artifact_folder("hpc-queue") / f"submit-form-{script.stem}.png"))
    form.accept()
    qtbot.waitUntil(lambda: view.question is not None)
    box = view.question
    assert box is not None and box.objectName() == "confirm-hpc-submit"
    box.button(QMessageBox.StandardButton.Yes).click()


def slurm_job(pool: SshPool, view: QueueView, qtbot: QtBot, name: str) -> dict[str, str]:
    """What Slurm itself says of the job the view lists under `name`."""
    qtbot.waitUntil(lambda: any(row.name == name for row in view.model.rows()), timeout=WAIT_MS)
    job_id = next(row.job_id for row in view.model.rows() if row.name == name)
    shown = pool.shell(HOST).run(["scontrol", "show", "job", "-o", job_id]).check("scontrol")
    return dict(re.findall(r"(\S+?)=(\S*)", shown.stdout))


def test_the_forms_options_override_a_scripts_own_lines(
    qtbot: QtBot,
    context: AppContext,
    hpc_settings: HpcSettings,
    ssh_pool: SshPool,
    tmp_path: Path,
) -> None:
    context.settings = context.settings.with_plugin("hpc", hpc_settings)
    view = queue_view(context)
    assert isinstance(view, QueueView)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitUntil(
        lambda: view.poller.polls >= 1 and not view.problem.isVisible(), timeout=WAIT_MS
    )
    partition = hpc_settings.hosts[0].partition

    overridden = tmp_path / "overridden.sbatch"
    overridden.write_text(SCRIPT.format(name="qv-script-set"))
    submit_script(view, qtbot, overridden, partition, "7", 2)
    job = slurm_job(ssh_pool, view, qtbot, "qv-script-set")
    assert (job["TimeLimit"], job["CPUs/Task"], job["Partition"]) == ("00:07:00", "2", partition)
    assert "#SBATCH" in overridden.read_text() and "--time=7" not in overridden.read_text(), (
        "the person's file is left as it was"
    )

    kept = tmp_path / "kept.sbatch"
    kept.write_text(SCRIPT.format(name="qv-script-own"))
    submit_script(view, qtbot, kept, "", "", 0)
    job = slurm_job(ssh_pool, view, qtbot, "qv-script-own")
    assert (job["TimeLimit"], job["CPUs/Task"]) == ("00:05:00", "1"), "the script's own lines"

    submits = context.store.tool_calls("submit_slurm_job")
    assert [call["ok"] for call in submits] == [True, True], "both went through the tool"
    view.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=WAIT_MS)
