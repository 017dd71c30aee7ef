"""The HPC specialist's tools, named as the reference's so its prompts work.

tool_jobs.py     generate_training_command, submit_slurm_job, get_slurm_job_status,
                 cancel_slurm_job
tool_monitor.py  monitor_job_until_complete (progress on the bus, a person's Cancel stops it)
tool_outputs.py  download_job_outputs, evaluate_model
tool_support.py  the app's SSH pool and job tracker, the default host, failures as messages

Submitting and cancelling act on a shared cluster: physical, so a person confirms each (as for
printing; `--yes` headless).
"""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.hpc import tool_jobs, tool_monitor, tool_outputs


def tools() -> list[Tool]:
    return [
        Tool(
            "generate_training_command",
            "Write the SLURM batch script that trains a generative model (cgan_cnn_2d or "
            "diffusion_2d_cond) for a problem (beams2d) with the given epochs and seed on a "
            "cluster host; returns the script's path and text. Submit it with submit_slurm_job.",
            tool_jobs.GenerateArgs,
            tool_jobs.GenerateResult,
            tool_jobs.generate_training_command,
            SideEffect.WRITE,
        ),
        Tool(
            "submit_slurm_job",
            "Upload a script written by generate_training_command to its cluster and submit it "
            "with sbatch; returns the job id. The app follows the job from then on.",
            tool_jobs.SubmitArgs,
            tool_jobs.JobResult,
            tool_jobs.submit_slurm_job,
            SideEffect.PHYSICAL,
            files=tool_jobs.script_files,
        ),
        Tool(
            "get_slurm_job_status",
            "A Slurm job's state now (PENDING, RUNNING, COMPLETED, FAILED, ...), pending reason, "
            "exit code, elapsed time and the end of its log.",
            tool_jobs.JobArgs,
            tool_jobs.JobResult,
            tool_jobs.get_slurm_job_status,
            SideEffect.READ,
        ),
        Tool(
            "monitor_job_until_complete",
            "Wait for a Slurm job to finish, checking every check_interval seconds at most "
            "max_checks times; returns its final state (finished=false if the checks ran out).",
            tool_monitor.MonitorArgs,
            tool_monitor.MonitorResult,
            tool_monitor.monitor_job_until_complete,
            SideEffect.READ,
        ),
        Tool(
            "cancel_slurm_job",
            "Cancel a Slurm job (scancel).",
            tool_jobs.JobArgs,
            tool_jobs.JobResult,
            tool_jobs.cancel_slurm_job,
            SideEffect.PHYSICAL,
        ),
        Tool(
            "download_job_outputs",
            "Copy a job's outputs folder from the cluster into the workspace over SFTP.",
            tool_outputs.DownloadArgs,
            tool_outputs.DownloadResult,
            tool_outputs.download_job_outputs,
            SideEffect.WRITE,
            files=tool_outputs.download_files,
        ),
        Tool(
            "evaluate_model",
            "Download a completed training job's outputs and compute the model's EngiOpt "
            "metrics: IOG, COG, FOG, MMD, DPP and the volume-violation rate (viol).",
            tool_outputs.EvaluateArgs,
            tool_outputs.EvaluateResult,
            tool_outputs.evaluate_model,
            SideEffect.COMPUTE,
        ),
    ]
