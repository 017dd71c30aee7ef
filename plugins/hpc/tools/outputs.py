"""download_job_outputs and evaluate_model: a finished job's outputs into the workspace (SFTP),
and the trained model's EngiOpt metrics computed from them.

A download never deletes or overwrites anything it did not create: it makes a NEW folder,
<destination>/<host>-<job id>-outputs (suffixed -2, -3, ... when that name is taken), and writes
only there; the destination defaults to hpc/outputs in the workspace (another folder only where
the confinement rules allow it). Each download reports the folder, its files and
`outputs_sha256`, one digest over every file's relative path and content, so a score can be
bound to the very outputs it was computed from.
"""

from __future__ import annotations

import hashlib
import math
import shutil
from pathlib import Path

from pydantic import BaseModel, Field

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.hpc.slurm.jobs import JobState, TrackedJob
from workbench_plugins.hpc.tools.jobs import HOST_FIELD, Arguments, JobArgs, find_tracked, followed
from workbench_plugins.hpc.tools.support import remote_errors, services_for
from workbench_plugins.hpc.training.recipes import Algorithm

OUTPUTS_FOLDER = "hpc/outputs"
METRIC_KEYS = ("iog", "cog", "fog", "mmd", "dpp", "viol")
# the evaluation's copy of the training dataset: deterministic (named by a hash of what makes
# it), so one cache serves every workspace and bench cell instead of ~10 s of EngiBench each
DATASETS_FOLDER = "hpc-datasets"


class DownloadArgs(JobArgs):
    destination: str = Field(
        "",
        description="Folder in which a new folder <host>-<job id>-outputs is made for the "
        "outputs (nothing there is replaced); default hpc/outputs",
    )


class DownloadResult(BaseModel):
    job_id: str
    host: str
    local_path: str
    files: list[str]
    outputs_sha256: str
    message: str


class EvaluateArgs(Arguments):
    problem_id: str = Field("beams2d", description="The problem the model was trained on")
    algorithm: Algorithm = Field("cgan_cnn_2d", description="cgan_cnn_2d or diffusion_2d_cond")
    seed: int = Field(..., ge=0, description="The training seed of the model")
    n_samples: int = Field(50, ge=1, le=1000, description="Generated designs to evaluate")
    job_id: str | None = Field(
        None,
        description="The training job; default: the newest "
        "completed job of this algorithm, problem and seed",
    )
    host: str | None = HOST_FIELD


class EvaluateResult(BaseModel):
    problem_id: str
    algorithm: str
    seed: int
    job_id: str
    host: str
    n_samples: int
    iog: float
    cog: float
    fog: float
    mmd: float
    dpp: float
    viol: float
    outputs_path: str
    outputs_sha256: str
    message: str


def outputs_sha256(folder: Path) -> str:
    """One digest of a folder: every file's relative path and content, in path order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _destination(context: ToolContext, requested: str) -> Path:
    """The folder the outputs' own new folder goes in, confined as any written path."""
    return context.file(requested or OUTPUTS_FOLDER, mode="write")


def download_files(args: DownloadArgs, context: ToolContext) -> Path:
    return _destination(context, args.destination)


def new_folder(parent: Path, name: str) -> Path:
    """A folder made now, so nothing in it is anyone else's: `name`, else `name-2`, ...
    (mkdir fails on an existing name, so two downloads at once never share one)."""
    if parent.exists() and not parent.is_dir():
        raise ToolFailure(
            f"The destination {parent} is a file; it was left as it is.",
            hint="Name a folder as destination (a new folder for the outputs is made in it), "
            "or leave destination out.",
        )
    parent.mkdir(parents=True, exist_ok=True)
    for number in range(1, 1000):
        folder = parent / (name if number == 1 else f"{name}-{number}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder
    raise ToolFailure(
        f"{parent} already holds {name} and 998 numbered copies of it.",
        hint="Remove old downloads, or name another destination.",
    )


def fetch_outputs(context: ToolContext, job: TrackedJob, requested: str = "") -> DownloadResult:
    if not job.outputs_dir:
        raise ToolFailure(
            f"Job {job.job_id} on {job.host} has no outputs folder on record.",
            hint="Only jobs submitted with submit_slurm_job from a generated script have one.",
        )
    name = f"{job.host}-{job.job_id}-outputs".replace("/", "_")
    local = new_folder(_destination(context, requested), name)
    try:
        with remote_errors(job.host):
            services_for(context.app).shell(job.host).download(job.outputs_dir, local)
    except BaseException as error:
        shutil.rmtree(local, ignore_errors=True)  # made above by this call: only its own files
        if isinstance(error, OSError):  # a missing outputs folder, a refused remote name
            raise ToolFailure(
                f"The outputs of job {job.job_id} could not be downloaded from {job.host}: {error}",
                hint="Check that the job wrote its outputs folder (get_slurm_job_status shows "
                "its log).",
            ) from None
        raise
    files = sorted(p.relative_to(local).as_posix() for p in local.rglob("*") if p.is_file())
    if not files:
        shutil.rmtree(local, ignore_errors=True)  # made above by this call, and empty
        raise ToolFailure(
            f"Job {job.job_id}'s outputs folder {job.outputs_dir} on {job.host} is empty.",
            hint="Read the job's log (get_slurm_job_status) to see why it wrote nothing.",
        )
    return DownloadResult(
        job_id=job.job_id,
        host=job.host,
        local_path=str(local),
        files=files,
        outputs_sha256=outputs_sha256(local),
        message=f"Downloaded {len(files)} file(s) of job {job.job_id} into {local}, a new "
        "folder; nothing that was there before was changed.",
    )


def download_job_outputs(args: DownloadArgs, context: ToolContext) -> DownloadResult:
    job = followed(context, args.job_id, args.host)
    return fetch_outputs(context, job, args.destination)


def _trained_job(args: EvaluateArgs, context: ToolContext) -> TrackedJob:
    if args.job_id:
        job = find_tracked(context, args.job_id, args.host)
        if job is None:
            raise ToolFailure(
                f"Job {args.job_id} is not a training job tracked in this workspace.",
                hint="Pass the job_id submit_slurm_job returned, or leave job_id out.",
            )
        return job
    matching = [
        job
        for job in services_for(context.app).tracker.tracked()
        if (recipe := job.meta.get("recipe", {}))
        and recipe.get("algorithm") == args.algorithm
        and recipe.get("problem_id") == args.problem_id
        and recipe.get("seed") == args.seed
        and (not args.host or job.host == args.host)
    ]
    done = [job for job in matching if job.state == JobState.COMPLETED]
    if not done:
        states = ", ".join(f"{job.job_id} {job.state}" for job in matching) or "none"
        raise ToolFailure(
            f"No completed training job of {args.algorithm} on {args.problem_id} with seed "
            f"{args.seed} is tracked in this workspace (matching jobs: {states}).",
            hint="Train one first (generate_training_command, submit_slurm_job, "
            "monitor_job_until_complete), or pass the job_id of the training.",
        )
    return done[-1]  # tracked() lists jobs in submission order


def evaluate_model(args: EvaluateArgs, context: ToolContext) -> EvaluateResult:
    job = _trained_job(args, context)
    if job.state != JobState.COMPLETED:
        raise ToolFailure(
            f"Job {job.job_id} is {job.state}, not COMPLETED: there is no trained model yet.",
            hint="Wait with monitor_job_until_complete, then evaluate.",
        )
    fetched = fetch_outputs(context, job)
    # imported here: EngiBench and the metrics load only when a model is evaluated
    from workbench_plugins.hpc.training.evaluate import evaluate_outputs

    try:
        metrics = evaluate_outputs(
            Path(fetched.local_path),
            context.app.paths.cache_dir / DATASETS_FOLDER,
            n_samples=args.n_samples,
            seed=args.seed,
        )
    except (OSError, ValueError, KeyError) as problem:
        raise ToolFailure(
            f"The outputs of job {job.job_id} could not be evaluated: {problem}",
            hint="Check the job's log; retrain if its outputs are incomplete.",
        ) from None
    values = {key: float(metrics[key]) for key in METRIC_KEYS}
    shown = ", ".join(
        f"{key.upper() if key != 'viol' else 'viol'}: {value:.6g}"
        for key, value in values.items()
        if math.isfinite(value)
    )
    return EvaluateResult(
        problem_id=args.problem_id,
        algorithm=args.algorithm,
        seed=args.seed,
        job_id=job.job_id,
        host=job.host,
        n_samples=args.n_samples,
        **values,
        outputs_path=fetched.local_path,
        outputs_sha256=fetched.outputs_sha256,
        message=f"Evaluated {args.algorithm} (seed {args.seed}, job {job.job_id}): {shown}.",
    )
