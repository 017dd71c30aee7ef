"""The HPC tools through the registry, as the agent and the GUI call them, on the real cluster
(tests/rigs/slurm_cluster.py): write, submit, follow, cancel, download, evaluate."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from tests.hpc.tool_support import call, own_script, result_of, submitted
from tests.rigs.slurm_cluster import SlurmCluster
from workbench.core.context import AppContext
from workbench.core.events import JobCancelRequested, JobFinished, JobProgress, JobStarted
from workbench.core.tools import ToolOutcome

HOST = "local"


def test_generate_writes_the_training_script_into_the_workspace(hpc_app: AppContext) -> None:
    result = result_of(
        call(
            hpc_app,
            "generate_training_command",
            algorithm="diffusion_2d_cond",
            problem_id="beams2d",
            epochs=3,
            seed=7,
        )
    )
    script = Path(result["script_path"])
    assert script.is_relative_to(hpc_app.store.folder) and script.read_text() == result["script"]
    assert result["host"] == HOST  # the first configured host, none named
    text = result["script"]
    assert "#SBATCH --partition=debug" in text
    assert "--algorithm diffusion_2d_cond" in text and "--seed 7" in text and "--epochs 3" in text
    assert f"--out {result['outputs_dir']}" in text
    sidecar = json.loads(script.with_suffix(".json").read_text())
    assert sidecar["recipe"]["seed"] == 7 and sidecar["outputs_dir"] == result["outputs_dir"]


def test_a_bad_argument_is_named(hpc_app: AppContext) -> None:
    outcome = call(hpc_app, "generate_training_command", algorithm="gan", epochs=0, seed=1)
    assert outcome.error is not None and outcome.error.kind == "invalid_arguments"
    assert {problem.field for problem in outcome.error.problems} == {"algorithm", "epochs"}


def test_without_a_host_the_tools_say_how_to_add_one(workbench_home: Path) -> None:
    app = AppContext.open()
    try:
        outcome = call(app, "generate_training_command", epochs=2, seed=1)
        assert outcome.error is not None and outcome.error.kind == "failed"
        assert "Settings > HPC" in outcome.error.message
        assert "~/.ssh/config" in outcome.error.message
    finally:
        app.close()


def test_submitting_and_cancelling_need_a_person(hpc_app: AppContext) -> None:
    script = own_script(hpc_app, "unconfirmed", "true")
    outcome = call(hpc_app, "submit_slurm_job", script_path=script)
    assert outcome.error is not None and outcome.error.kind == "confirmation_required"
    assert hpc_app.store.runs("slurm_job") == []  # nothing was submitted
    outcome = call(hpc_app, "cancel_slurm_job", job_id="1")
    assert outcome.error is not None and outcome.error.kind == "confirmation_required"


def test_a_failing_job_is_followed_to_failed_with_its_exit_code(hpc_app: AppContext) -> None:
    job = submitted(hpc_app, own_script(hpc_app, "fails", "echo going wrong; exit 3"))
    assert job["host"] == HOST and job["job_id"].isdigit()
    done = result_of(
        call(
            hpc_app,
            "monitor_job_until_complete",
            job_id=job["job_id"],
            check_interval=1,
            max_checks=60,
        )
    )
    assert done["finished"] and done["state"] == "FAILED" and done["exit_code"] == "3:0"
    assert "no model to evaluate" in done["message"]
    status = result_of(call(hpc_app, "get_slurm_job_status", job_id=job["job_id"]))
    assert status["state"] == "FAILED" and "going wrong" in status["log_tail"]


def test_cancel_stops_a_running_job(hpc_app: AppContext) -> None:
    job = submitted(hpc_app, own_script(hpc_app, "sleeper", "sleep 120"))
    cancelled = result_of(call(hpc_app, "cancel_slurm_job", confirmed=True, job_id=job["job_id"]))
    assert cancelled["job_id"] == job["job_id"]
    final = result_of(
        call(
            hpc_app,
            "monitor_job_until_complete",
            job_id=job["job_id"],
            check_interval=1,
            max_checks=30,
        )
    )
    assert final["state"] == "CANCELLED"


def test_monitoring_reports_progress_and_stops_on_a_persons_cancel(hpc_app: AppContext) -> None:
    job = submitted(hpc_app, own_script(hpc_app, "long", "sleep 120"))
    ident = f"slurm:{HOST}:{job['job_id']}"
    seen: list[object] = []
    for kind in (JobStarted, JobProgress, JobFinished):
        hpc_app.bus.subscribe(kind, seen.append)
    outcome: list[ToolOutcome] = []
    watcher = threading.Thread(
        target=lambda: outcome.append(
            call(
                hpc_app,
                "monitor_job_until_complete",
                job_id=job["job_id"],
                check_interval=1,
                max_checks=300,
            )
        )
    )
    watcher.start()
    deadline = time.monotonic() + 60
    while not any(isinstance(e, JobProgress) for e in seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    hpc_app.bus.publish(JobCancelRequested(job_id=ident))
    watcher.join(60)
    result_of(call(hpc_app, "cancel_slurm_job", confirmed=True, job_id=job["job_id"]))
    result = result_of(outcome[0])
    assert not result["finished"] and "cancelled" in result["message"]
    started = [e for e in seen if isinstance(e, JobStarted)]
    assert [e.job_id for e in started] == [ident]
    assert any(isinstance(e, JobProgress) and e.job_id == ident for e in seen)
    assert any(isinstance(e, JobFinished) and e.status == "cancelled" for e in seen)


def test_train_monitor_download_and_evaluate(hpc_app: AppContext) -> None:
    generated = result_of(
        call(hpc_app, "generate_training_command", algorithm="cgan_cnn_2d", epochs=2, seed=4)
    )
    job = submitted(hpc_app, generated["script_path"])
    done = result_of(
        call(
            hpc_app,
            "monitor_job_until_complete",
            job_id=job["job_id"],
            check_interval=1,
            max_checks=600,
        )
    )
    assert done["state"] == "COMPLETED", done["log_tail"]
    evaluated = result_of(
        call(
            hpc_app,
            "evaluate_model",
            problem_id="beams2d",
            algorithm="cgan_cnn_2d",
            seed=4,
            n_samples=8,
        )
    )
    assert evaluated["job_id"] == job["job_id"]
    for metric in ("iog", "cog", "fog", "mmd", "dpp", "viol"):
        assert isinstance(evaluated[metric], float), metric
    assert 0.0 <= evaluated["viol"] <= 1.0 and evaluated["mmd"] >= -1e-9
    downloaded = result_of(call(hpc_app, "download_job_outputs", job_id=job["job_id"]))
    assert Path(downloaded["local_path"]).is_relative_to(hpc_app.store.folder)
    # the same files as evaluated: the digest binds a score to its outputs
    assert downloaded["outputs_sha256"] == evaluated["outputs_sha256"]
    outside = call(hpc_app, "download_job_outputs", job_id=job["job_id"], destination="/tmp/x")
    assert outside.error is not None and outside.error.kind == "confirmation_required"


def test_evaluate_without_a_trained_job_says_what_to_do(hpc_app: AppContext) -> None:
    outcome = call(hpc_app, "evaluate_model", algorithm="cgan_cnn_2d", seed=99)
    assert outcome.error is not None and outcome.error.kind == "failed"
    assert "No completed training job" in outcome.error.message
    assert "generate_training_command" in (outcome.error.hint or "")


def test_monitoring_survives_a_dropped_ssh_connection(
    hpc_app: AppContext, slurm_rig: SlurmCluster
) -> None:
    job = submitted(hpc_app, own_script(hpc_app, "steady", "sleep 6; echo finished"))
    outcome: list[ToolOutcome] = []
    watcher = threading.Thread(
        target=lambda: outcome.append(
            call(
                hpc_app,
                "monitor_job_until_complete",
                job_id=job["job_id"],
                check_interval=1,
                max_checks=120,
            )
        )
    )
    watcher.start()
    time.sleep(2)  # monitoring is under way on the pool's one connection
    slurm_rig.drop_ssh_connections()
    watcher.join(120)
    result = result_of(outcome[0])
    assert result["finished"] and result["state"] == "COMPLETED"
    assert "finished" in result["log_tail"]  # read over the re-established connection
