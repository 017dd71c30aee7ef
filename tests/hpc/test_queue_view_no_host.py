"""The SLURM queue view with no host configured (issue 29): it says so instead of a blank table
with an "updated" time, Submit… is off with the reason, and "Add a host…" opens a form whose
connection test really connects (here to a closed port, refused in words) and whose Save writes
the host to the settings file, after which the view reads that host. Pictures go to
$WORKBENCH_TEST_ARTIFACTS (else tests/artifacts/) under hpc-queue/."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from tests.support.artifacts import artifact_folder
from workbench.core.context import AppContext
from workbench.core.settings import load_settings
from workbench.ui.async_loop import attached_event_loop, running_tasks
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.views import QueueView, queue_view
from workbench_plugins.hpc.views.host_form import HostForm


@pytest.fixture(autouse=True)
def gui_loop(qapp: object) -> Iterator[asyncio.AbstractEventLoop]:
    with attached_event_loop(qapp) as loop:  # type: ignore[arg-type]
        yield loop


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_no_host_is_said_with_a_way_to_add_one(qtbot: QtBot, context: AppContext) -> None:
    view = queue_view(context)
    assert isinstance(view, QueueView)
    qtbot.addWidget(view)
    view.resize(1000, 640)
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(300)
    assert view.no_host.isVisible() and "No SSH host is configured" in view.no_host_label.text()
    assert not view.table.isVisible()  # no blank table
    assert "updated" not in view.updated.text()
    assert not view.submit_button.isEnabled()
    assert "No SSH host" in view.submit_button.toolTip()
    assert view.add_host_button.isVisible()
    assert view.grab().save(str(artifact_folder("hpc-queue") / "queue-view-no-host.png"))

    view.add_host_button.click()
    qtbot.waitUntil(lambda: view.host_form is not None)
    form = view.host_form
    assert isinstance(form, HostForm)
    form.save()  # no name: nothing saved, said under the form
    assert form.isVisible() and form.errors.isVisible() and "name" in form.errors.text()

    form.name.setText("cluster")
    form.hostname.setText("127.0.0.1")
    form.port.setValue(closed_port())
    form.user.setText("nobody")
    form.test_connection()
    qtbot.waitUntil(lambda: not form.testing, timeout=30_000)
    assert form.test_result.text().startswith("Not reachable"), form.test_result.text()
    assert "Traceback" not in form.test_result.text()
    assert form.grab().save(str(artifact_folder("hpc-queue") / "add-host-form.png"))

    form.save()
    qtbot.waitUntil(lambda: view.host_form is None)
    saved = load_settings(context.paths.settings_file)[0].plugin("hpc", HpcSettings)
    assert [host.name for host in saved.hosts] == ["cluster"]
    assert not view.no_host.isVisible() and view.table.isVisible()
    assert view.submit_button.isEnabled()
    assert view.host_filter.findText("cluster") >= 0
    view.close()
    qtbot.waitUntil(lambda: running_tasks() == 0, timeout=30_000)
