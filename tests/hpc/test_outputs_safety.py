"""Nothing lost (issue 28) on the real cluster: a download writes only into a new folder of its
own, whatever destination it is given, and every job has a remote folder of its own."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from tests.hpc.tool_support import call, own_script, result_of, submitted
from workbench.core.context import AppContext
from workbench_plugins.hpc.tools.support import services_for

HOST = "local"
# the app's own bookkeeping: every tool call is recorded there (its rows are checked apart)
STORE_FILES = ("workspace.sqlite", "workspace.sqlite-wal", "workspace.sqlite-shm")


def snapshot(folder: Path) -> dict[str, str]:
    """sha256 of every file under `folder` but the store, by relative path."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name not in STORE_FILES
    }


def finished_job(app: AppContext, name: str, command: str) -> dict[str, Any]:
    job = submitted(app, own_script(app, name, command))
    done = result_of(
        call(
            app, "monitor_job_until_complete", job_id=job["job_id"], check_interval=1, max_checks=60
        )
    )
    assert done["state"] == "COMPLETED", done["log_tail"]
    return job


def user_files(root: Path) -> None:
    """What a person keeps in a workspace, next to the app's own files."""
    (root / "notes.txt").write_text("my notes\n")
    (root / "artifacts").mkdir(exist_ok=True)
    (root / "artifacts" / "model.bin").write_bytes(bytes(range(256)))
    (root / "precious").write_text("a user's file, not a folder\n")


def test_a_download_into_the_workspace_root_changes_no_existing_file(hpc_app: AppContext) -> None:
    root = hpc_app.store.folder
    job = finished_job(hpc_app, "root", "echo result > result.txt")
    user_files(root)
    taken = root / f"{HOST}-{job['job_id']}-outputs"  # the name the download would take
    taken.mkdir()
    (taken / "result.txt").write_text("someone else's result\n")
    before = snapshot(root)

    downloaded = result_of(
        call(hpc_app, "download_job_outputs", job_id=job["job_id"], destination=".")
    )

    after = snapshot(root)
    assert {name: after[name] for name in before} == before  # nothing changed, nothing removed
    local = Path(downloaded["local_path"])
    assert local == taken.with_name(f"{taken.name}-2") and local.parent == root
    assert (local / "result.txt").read_text() == "result\n"
    new = sorted(set(after) - set(before))
    assert new and all(name.startswith(f"{local.name}/") for name in new)
    assert str(local) in downloaded["message"] and "nothing that was there" in downloaded["message"]
    # the store (job tracking) is still there and still knows the job
    assert (root / "workspace.sqlite").is_file()
    assert any(j.job_id == job["job_id"] for j in services_for(hpc_app).tracker.tracked())


def test_a_users_file_or_folder_as_destination_is_left_as_it_was(hpc_app: AppContext) -> None:
    root = hpc_app.store.folder
    job = finished_job(hpc_app, "precious", "echo result > result.txt")
    user_files(root)
    before = snapshot(root)

    refused = call(hpc_app, "download_job_outputs", job_id=job["job_id"], destination="precious")

    assert refused.error is not None and refused.error.kind == "failed"
    assert "is a file" in refused.error.message and "left as it is" in refused.error.message
    assert snapshot(root) == before
    downloaded = result_of(
        call(hpc_app, "download_job_outputs", job_id=job["job_id"], destination="artifacts")
    )
    assert snapshot(root).items() >= before.items()
    assert Path(downloaded["local_path"]).parent == root / "artifacts"
    assert "result.txt" in downloaded["files"]


def test_two_jobs_of_one_script_bring_back_only_their_own_outputs(hpc_app: AppContext) -> None:
    script = own_script(hpc_app, "same", 'echo "$SLURM_JOB_ID" > whoami.txt')
    jobs = [submitted(hpc_app, script) for _ in range(2)]
    assert jobs[0]["outputs_dir"] != jobs[1]["outputs_dir"]  # a remote folder per job
    for job in jobs:
        done = result_of(
            call(hpc_app, "monitor_job_until_complete", job_id=job["job_id"], check_interval=1)
        )
        assert done["state"] == "COMPLETED", done["log_tail"]
    for job, other in (jobs, jobs[::-1]):
        downloaded = result_of(call(hpc_app, "download_job_outputs", job_id=job["job_id"]))
        local = Path(downloaded["local_path"])
        assert (local / "whoami.txt").read_text().strip() == job["job_id"]
        assert f"slurm-{other['job_id']}.out" not in downloaded["files"]
        assert f"slurm-{job['job_id']}.out" in downloaded["files"]


def test_a_generated_script_is_not_submitted_twice_into_one_folder(hpc_app: AppContext) -> None:
    generated = result_of(
        call(hpc_app, "generate_training_command", algorithm="cgan_cnn_2d", epochs=1, seed=3)
    )
    first = submitted(hpc_app, generated["script_path"])
    try:
        again = call(
            hpc_app, "submit_slurm_job", confirmed=True, script_path=generated["script_path"]
        )
        assert again.error is not None and again.error.kind == "failed"
        assert first["job_id"] in again.error.message and "generate_training_command" in (
            again.error.hint or ""
        )
    finally:
        result_of(call(hpc_app, "cancel_slurm_job", confirmed=True, job_id=first["job_id"]))
