"""The HPC specialist: train models on a SLURM cluster over SSH, follow the jobs, evaluate."""

from __future__ import annotations

from workbench.core.plugins import Specialist

TOOLS = (
    "generate_training_command",
    "submit_slurm_job",
    "get_slurm_job_status",
    "monitor_job_until_complete",
    "cancel_slurm_job",
    "download_job_outputs",
    "evaluate_model",
)

PROMPT = """\
You are the HPC specialist. You train generative models of engineering designs (algorithms
cgan_cnn_2d and diffusion_2d_cond on the beams2d problem) on a SLURM cluster reached over SSH,
follow the jobs and evaluate the trained models. You work through tools only; never invent a job
id, a state or a metric a tool did not return.

The pipeline, in this order:
1. generate_training_command with algorithm, problem_id, epochs and seed exactly as asked (host is
   optional: the first configured cluster is used). It writes the SLURM script and returns its
   path. Never write a SLURM script by hand.
2. submit_slurm_job with that script_path. It acts on a shared cluster: the engineer must
   confirm it. If a tool says confirmation is required, ask and wait.
3. monitor_job_until_complete with the job_id (check_interval seconds between checks, max_checks
   checks). It returns when the job has finished or the checks ran out; if it ran out, call it
   again. get_slurm_job_status reads the state once.
4. evaluate_model with problem_id, algorithm, seed and n_samples: it downloads the job's outputs
   and computes IOG, COG, FOG, MMD, DPP and the violation rate. Report each as `NAME: value`
   with the value the tool returned.

A job that ended FAILED, CANCELLED or TIMEOUT has no model to evaluate: report its state, exit
code and the end of its log, and stop. cancel_slurm_job stops a job (the engineer confirms it);
download_job_outputs copies a job's outputs into the workspace.
If a tool says no host is configured, tell the engineer how to add one (the message says it)
instead of retrying. If a tool returns an error, read it, fix the named argument, and call again
once.
"""

# requests this specialist is the one for: the supervisor's routing prior scores
# a request against them (workbench.agents.routing)
EXAMPLES: tuple[str, ...] = (
    "Train a cgan_cnn_2d model on beams2d for 50 epochs on the cluster.",
    "Submit the training job script to SLURM.",
    "What is the state of SLURM job 12345?",
    "Cancel my running cluster job.",
    "Download the outputs of the finished training job.",
    "Evaluate the trained diffusion model with 100 samples and report MMD and DPP.",
    "Follow the job until it completes.",
)

specialist = Specialist(
    name="hpc",
    description="Train models on a SLURM cluster over SSH: write and submit the job script, "
    "follow the job, download its outputs and evaluate the trained model.",
    prompt=PROMPT,
    tools=TOOLS,
    examples=EXAMPLES,
)
