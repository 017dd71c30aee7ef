"""The job tools: write a training script, submit it, read a job's state, cancel it.

generate_training_command writes the script into the workspace (hpc/scripts/) with a sidecar
json naming where the job runs on the cluster and what it trains; submit_slurm_job uploads that
script, runs `sbatch --parsable` and has the app's tracker follow the job (in the workspace
store, so it is still followed after a restart). Every job runs in a remote folder of its own,
so one job's outputs are never another's. Monitoring is in monitor.py.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.hpc.slurm.client import rows_of
from workbench_plugins.hpc.slurm.jobs import TrackedJob
from workbench_plugins.hpc.slurm.script import JobSpec, render_script
from workbench_plugins.hpc.tools.support import (
    REFRESH_COMMAND_TIMEOUT_S,
    REFRESH_WAIT_S,
    remote_errors,
    services_for,
)
from workbench_plugins.hpc.training.recipes import Algorithm, TrainingRecipe, training_argv

SCRIPTS_FOLDER = "hpc/scripts"
SIDECAR_SUFFIX = ".json"
LOG_TAIL_CHARS = 2000


class Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


HOST_FIELD = Field(
    None, description="The cluster host's name (Settings > HPC); default: the first configured"
)


class GenerateArgs(Arguments):
    algorithm: Algorithm = Field("cgan_cnn_2d", description="cgan_cnn_2d or diffusion_2d_cond")
    problem_id: str = Field("beams2d", description="The EngiBench problem (beams2d)")
    epochs: int = Field(..., ge=1, le=10_000, description="Training epochs")
    seed: int = Field(..., ge=0, le=2**31 - 1, description="Training seed")
    host: str | None = HOST_FIELD
    time_limit: str = Field("01:00:00", description="Slurm time limit, HH:MM:SS")
    partition: str = Field("", description="Slurm partition; default: the host's, else Slurm's")


class GenerateResult(BaseModel):
    script_path: str
    script: str
    host: str
    job_name: str
    remote_dir: str
    outputs_dir: str
    recipe: dict[str, Any]
    message: str


class SubmitArgs(Arguments):
    script_path: str = Field(..., description="The script generate_training_command wrote")
    host: str | None = HOST_FIELD


class JobArgs(Arguments):
    job_id: str = Field(..., min_length=1, description="The Slurm job id (e.g. 123 or 123_2)")
    host: str | None = HOST_FIELD


class JobResult(BaseModel):
    job_id: str
    host: str
    name: str = ""
    state: str
    reason: str = ""
    exit_code: str | None = None
    elapsed: str = ""
    log_path: str = ""
    outputs_dir: str = ""
    log_tail: str = ""
    message: str


def generate_training_command(args: GenerateArgs, context: ToolContext) -> GenerateResult:
    if args.problem_id != "beams2d":
        raise ToolFailure(
            f"problem_id {args.problem_id!r} has no training recipe.", hint="Use beams2d."
        )
    services = services_for(context.app)
    host = services.host(args.host)
    recipe = TrainingRecipe(
        algorithm=args.algorithm, problem_id="beams2d", seed=args.seed, epochs=args.epochs
    )
    name = f"train-{recipe.algorithm}-{recipe.problem_id}-s{recipe.seed}-e{recipe.epochs}"
    token = uuid.uuid4().hex[:8]
    with remote_errors(host):
        root = services.remote_root(host)
        python = services.python(host)
        profile = services.profile(host)
    remote_dir = f"{root}/runs/{name}-{token}"
    outputs_dir = f"{remote_dir}/outputs"
    try:
        spec = JobSpec(
            name=name,
            command=training_argv(recipe, python, outputs_dir, f"{root}/datasets"),
            partition=args.partition or profile.partition,
            time_limit=args.time_limit,
            workdir=remote_dir,
            output=f"{remote_dir}/slurm-%j.out",
        )
    except ValueError as invalid:
        raise ToolFailure(f"The job cannot be written: {invalid}") from None
    script = render_script(spec)
    path = context.file(f"{SCRIPTS_FOLDER}/{name}-{token}.sbatch", mode="write")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script)
    sidecar = {
        "host": host,
        "name": name,
        "remote_dir": remote_dir,
        "outputs_dir": outputs_dir,
        "log_pattern": spec.output_path(),
        "recipe": recipe.model_dump(),
    }
    path.with_suffix(SIDECAR_SUFFIX).write_text(json.dumps(sidecar, indent=2))
    context.add_artifact(path, kind="hpc.slurm_script", meta=sidecar)
    return GenerateResult(
        script_path=str(path),
        script=script,
        host=host,
        job_name=name,
        remote_dir=remote_dir,
        outputs_dir=outputs_dir,
        recipe=recipe.model_dump(),
        message=f"Wrote the SLURM script for {name} on {host}: {path.name}. Submit it with "
        "submit_slurm_job.",
    )


def script_files(args: SubmitArgs, context: ToolContext) -> Path:
    return context.file(args.script_path, mode="read")


def submit_slurm_job(args: SubmitArgs, context: ToolContext) -> JobResult:
    path = script_files(args, context)
    if not path.is_file():
        raise ToolFailure(
            f"There is no script at {args.script_path}.",
            hint="Call generate_training_command first and pass the script_path it returns.",
        )
    sidecar_path = path.with_suffix(SIDECAR_SUFFIX)
    sidecar: dict[str, Any] = json.loads(sidecar_path.read_text()) if sidecar_path.is_file() else {}
    services = services_for(context.app)
    host = services.host(args.host or sidecar.get("host"))
    _refuse_a_shared_folder(services.tracker.tracked(), host, path, sidecar)
    with remote_errors(host):
        # a hand-written script: a new folder per submission, never one per script name
        remote_dir = (
            sidecar.get("remote_dir")
            or f"{services.remote_root(host)}/jobs/{path.stem}-{uuid.uuid4().hex[:8]}"
        )
        job_id = services.client(host).submit(path.read_text(), remote_dir)
        meta = {
            **sidecar,
            "remote_dir": remote_dir,
            "log_path": sidecar.get("log_pattern", f"{remote_dir}/slurm-%j.out"),
            "outputs_dir": sidecar.get("outputs_dir", remote_dir),
            "script": path.name,
            "name": sidecar.get("name", path.stem),
        }
        tracked = services.tracker.track(host, job_id, meta)
    return job_result(tracked, f"Submitted {meta['name']} to {host} as job {job_id}.")


def _refuse_a_shared_folder(
    tracked: list[TrackedJob], host: str, path: Path, sidecar: dict[str, Any]
) -> None:
    """A generated script names its job's folder inside it: submitted twice, two jobs would
    write (and a download bring back) each other's outputs."""
    folder = sidecar.get("remote_dir")
    earlier = next(
        (j for j in tracked if folder and j.host == host and j.meta.get("remote_dir") == folder),
        None,
    )
    if earlier is not None:
        raise ToolFailure(
            f"{path.name} was already submitted to {host} as job {earlier.job_id} "
            f"({earlier.state}); a second job would share its folder {folder} and mix its "
            "outputs with the first one's.",
            hint="Call generate_training_command again (the same arguments are fine): the new "
            "script gets a folder of its own.",
        )


def job_result(job: TrackedJob, message: str, log_tail: str = "") -> JobResult:
    return JobResult(
        job_id=job.job_id,
        host=job.host,
        name=job.name,
        state=str(job.state),
        reason=job.reason or "",
        exit_code=job.exit_code,
        elapsed=job.elapsed or "",
        log_path=job.log_path or "",
        outputs_dir=job.outputs_dir or "",
        log_tail=log_tail,
        message=message,
    )


def find_tracked(context: ToolContext, job_id: str, host: str | None) -> TrackedJob | None:
    """The tracked job with this id (on `host`, when one is named)."""
    for job in services_for(context.app).tracker.tracked():
        if job.job_id == job_id and (not host or job.host == host):
            return job
    return None


def log_tail(context: ToolContext, job: TrackedJob) -> str:
    """The end of a job's log ("" when it has none yet)."""
    if not job.log_path:
        return ""
    try:
        text = services_for(context.app).shell(job.host).read_text(job.log_path)
    except Exception:  # a log not written yet is no reason to fail a status call
        return ""
    return text[-LOG_TAIL_CHARS:]


def followed(context: ToolContext, job_id: str, host: str | None) -> TrackedJob:
    """A job the tracker follows: a tracked one, or one submitted elsewhere, tracked now."""
    job = find_tracked(context, job_id, host)
    if job is not None:
        return job
    services = services_for(context.app)
    name = services.host(host)
    with remote_errors(name):
        rows = services.client(name).states([job_id], REFRESH_COMMAND_TIMEOUT_S)
        if not rows_of(rows, job_id):  # an array's id ("19") answers with its tasks' rows
            raise ToolFailure(
                f"Job {job_id} is not known on {name}.",
                hint="Pass the job_id submit_slurm_job returned (and its host).",
            )
        return services.tracker.track(name, job_id, {})


def get_slurm_job_status(args: JobArgs, context: ToolContext) -> JobResult:
    """The job's state as Slurm says it now; a state that could not be refreshed is a failure
    naming its age and why, never an answer that looks current."""
    job = followed(context, args.job_id, args.host)
    if not job.finished:  # a finished job's state is final: nothing to refresh
        asked = time.time()
        answered = services_for(context.app).refresh(job.host)
        job = find_tracked(context, job.job_id, job.host) or job
        if not job.finished and job.seen < asked:
            raise ToolFailure(_not_refreshed(job, answered), hint=_STALE_HINT)
    tail = log_tail(context, job)
    return job_result(job, f"Job {job.job_id} on {job.host} is {job.state}.", tail)


def cancel_slurm_job(args: JobArgs, context: ToolContext) -> JobResult:
    job = followed(context, args.job_id, args.host)
    services = services_for(context.app)
    with remote_errors(job.host):
        services.client(job.host).cancel(job.job_id)
        services.tracker.poll()
    job = find_tracked(context, job.job_id, job.host) or job
    return job_result(job, f"Asked Slurm to cancel job {job.job_id} on {job.host}: {job.state}.")


_STALE_HINT = (
    "Check the connection and the cluster (`workbench doctor`), then ask again; "
    "monitor_job_until_complete keeps following the job through an outage."
)


def _not_refreshed(job: TrackedJob, answered: bool) -> str:
    if not answered:
        why = f"{job.host} did not answer within {REFRESH_WAIT_S:g} s"
        if job.unreachable and job.error:
            why += f" (the try before: {job.error})"
    else:
        why = job.error or "the poll failed (the app's log says why)"
    return (
        f"The state of job {job.job_id} on {job.host} could not be refreshed: {why}. "
        f"It was {job.last_seen()}; that may no longer be true."
    )
