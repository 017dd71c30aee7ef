"""The HPC specialist's tools, named as the reference's so its prompts work.

jobs.py     generate_training_command, submit_slurm_job, get_slurm_job_status,
            cancel_slurm_job
monitor.py  monitor_job_until_complete (progress on the bus, a person's Cancel stops it)
outputs.py  download_job_outputs, evaluate_model
support.py  the app's SSH pool and job tracker, the default host, failures as messages

Submitting and cancelling act on a shared cluster: physical, so a person confirms each (as for
printing; `--yes` headless).
"""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.hpc.tools import jobs, monitor, outputs
from workbench_plugins.hpc.tools.precheck import submit_precheck


def tools() -> list[Tool]:
    return [
        Tool(
            "generate_training_command",
            "Write the SLURM batch script that trains a generative model (cgan_cnn_2d or "
            "diffusion_2d_cond) for a problem (beams2d) with the given epochs and seed on a "
            "cluster host; returns the script's path and text. Submit it with submit_slurm_job.",
            jobs.GenerateArgs,
            jobs.GenerateResult,
            jobs.generate_training_command,
            SideEffect.WRITE,
        ),
        Tool(
            "submit_slurm_job",
            "Upload a script written by generate_training_command to its cluster and submit it "
            "with sbatch; returns the job id. The app follows the job from then on.",
            jobs.SubmitArgs,
            jobs.JobResult,
            jobs.submit_slurm_job,
            SideEffect.PHYSICAL,
            files=jobs.script_files,
            precheck=submit_precheck,  # an unconfigured host is refused before anyone is asked
        ),
        Tool(
            "get_slurm_job_status",
            "A Slurm job's (or array's) state now (PENDING, RUNNING, COMPLETED, FAILED, ...), "
            "pending reason, exit code, elapsed time and the end of its log. Fails, naming the "
            "last state seen and its age, when the cluster cannot be asked.",
            jobs.JobArgs,
            jobs.JobResult,
            jobs.get_slurm_job_status,
            SideEffect.READ,
        ),
        Tool(
            "monitor_job_until_complete",
            "Wait for a Slurm job to finish, checking every check_interval seconds at most "
            "max_checks times; returns its final state (finished=false if the checks ran out).",
            monitor.MonitorArgs,
            monitor.MonitorResult,
            monitor.monitor_job_until_complete,
            SideEffect.READ,
        ),
        Tool(
            "cancel_slurm_job",
            "Cancel a Slurm job (scancel).",
            jobs.JobArgs,
            jobs.JobResult,
            jobs.cancel_slurm_job,
            SideEffect.PHYSICAL,
        ),
        Tool(
            "download_job_outputs",
            "Copy a job's outputs folder from the cluster over SFTP into a new folder "
            "(<destination>/<host>-<job id>-outputs); nothing existing is replaced.",
            outputs.DownloadArgs,
            outputs.DownloadResult,
            outputs.download_job_outputs,
            SideEffect.WRITE,
            files=outputs.download_files,
        ),
        Tool(
            "evaluate_model",
            "Download a completed training job's outputs and compute the model's EngiOpt "
            "metrics: IOG, COG, FOG, MMD, DPP and the volume-violation rate (viol).",
            outputs.EvaluateArgs,
            outputs.EvaluateResult,
            outputs.evaluate_model,
            SideEffect.COMPUTE,
        ),
    ]
