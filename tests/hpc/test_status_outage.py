"""A stale state is not presented as current (issue 28): during a controller or SSH outage
get_slurm_job_status answers within a bound, as a failure naming the last state, its age and
why it could not be refreshed. On the real cluster, with its slurmctld stopped, and with the
host's SSH port pointing at a listener that never answers."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from tests.hpc.tool_support import call, own_script, result_of, submitted
from tests.rigs.slurm_cluster import SlurmCluster
from workbench.core.context import AppContext
from workbench.core.tools import ToolOutcome
from workbench_plugins.hpc.tools.support import REFRESH_WAIT_S

BOUND_S = REFRESH_WAIT_S + 2.0  # the wait, and the tool call's own work around it


def running_job(app: AppContext) -> str:
    job = submitted(app, own_script(app, "steady", "sleep 300"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = result_of(call(app, "get_slurm_job_status", job_id=job["job_id"]))
        if status["state"] == "RUNNING":
            return str(job["job_id"])
        time.sleep(0.5)
    raise AssertionError(f"job {job['job_id']} did not start")


def timed_status(app: AppContext, job_id: str) -> tuple[ToolOutcome, float]:
    started = time.monotonic()
    outcome = call(app, "get_slurm_job_status", job_id=job_id)
    return outcome, time.monotonic() - started


def assert_stale(outcome: ToolOutcome, took: float, why: str) -> None:
    assert took < BOUND_S, f"took {took:.1f} s"
    assert outcome.error is not None and outcome.error.kind == "failed", outcome
    message = outcome.error.message
    assert "could not be refreshed" in message and why in message, message
    assert "It was RUNNING as of " in message and " ago (" in message, message


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts TCP connections and never says a word (a hung or firewalled host)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield int(listener.getsockname()[1])


def test_a_controller_outage_is_answered_with_the_states_age(
    hpc_app: AppContext, slurm_rig: SlurmCluster
) -> None:
    job_id = running_job(hpc_app)
    slurm_rig.stop_controller()
    try:
        outcome, took = timed_status(hpc_app, job_id)
        assert_stale(outcome, took, f"did not answer within {REFRESH_WAIT_S:g} s")
        time.sleep(REFRESH_WAIT_S + 14)  # the poll under way ends: squeue gives up or times out
        outcome, took = timed_status(hpc_app, job_id)
        print(f"controller outage: status answered in {took:.1f} s: {outcome.error}")
        assert_stale(outcome, took, "the Slurm controller did not answer")  # the poll's error
    finally:
        slurm_rig.start_controller()
    status = result_of(call(hpc_app, "get_slurm_job_status", job_id=job_id))
    assert status["state"] == "RUNNING"  # refreshed again once the controller is back
    result_of(call(hpc_app, "cancel_slurm_job", confirmed=True, job_id=job_id))


def test_an_ssh_outage_is_answered_within_the_bound(hpc_app: AppContext, silent_port: int) -> None:
    job_id = running_job(hpc_app)
    settings = dict(hpc_app.settings.plugins["hpc"])
    real_port = settings["hosts"][0]["port"]
    settings["hosts"] = [{**settings["hosts"][0], "port": silent_port}]
    hpc_app.settings.plugins["hpc"] = settings  # a new pool: the host no longer answers
    try:
        outcome, took = timed_status(hpc_app, job_id)
        print(f"SSH outage: status answered in {took:.1f} s: {outcome.error}")
        assert_stale(outcome, took, f"did not answer within {REFRESH_WAIT_S:g} s")
    finally:
        settings["hosts"] = [{**settings["hosts"][0], "port": real_port}]
        hpc_app.settings.plugins["hpc"] = dict(settings)
    result_of(call(hpc_app, "cancel_slurm_job", confirmed=True, job_id=job_id))


def test_a_refused_connection_names_the_reason(hpc_app: AppContext) -> None:
    job_id = running_job(hpc_app)
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        closed = int(probe.getsockname()[1])
    settings = dict(hpc_app.settings.plugins["hpc"])
    real_port = settings["hosts"][0]["port"]
    settings["hosts"] = [{**settings["hosts"][0], "port": closed}]
    hpc_app.settings.plugins["hpc"] = settings
    try:
        outcome, took = timed_status(hpc_app, job_id)
        print(f"refused: status answered in {took:.1f} s: {outcome.error}")
        assert_stale(outcome, took, "refused")
    finally:
        settings["hosts"] = [{**settings["hosts"][0], "port": real_port}]
        hpc_app.settings.plugins["hpc"] = dict(settings)
    result_of(call(hpc_app, "cancel_slurm_job", confirmed=True, job_id=job_id))
