"""The HPC suite's prompts (spec section 5): an explicit four-step prompt and a natural one, for
the reference's two algorithms.

Where the reference names its cluster ("Euler") the prompt names the host the cell runs on, and
the natural prompt's "it downloads from W&B" becomes "it downloads the job's outputs": this
project trains without external services. Epochs come from the task (the spec's 100 for full
runs; the CI grid sets a few, see suite.py), so the prompt always states what is checked.
"""

from __future__ import annotations

from dataclasses import dataclass

ALGORITHMS = ("cgan_cnn_2d", "diffusion_2d_cond")
PROBLEM_ID = "beams2d"
SPEC_EPOCHS = 100  # the spec's fixed value: full runs use it
CHECK_INTERVAL = 30  # the explicit prompt's monitoring arguments, as the reference
MAX_CHECKS = 200
N_SAMPLES = 50
STYLE_ALGORITHM = {
    "hpc-train-cgan": "cgan_cnn_2d",
    "hpc-train-diff": "diffusion_2d_cond",
    "hpc-train-natural-cgan": "cgan_cnn_2d",
    "hpc-train-natural-diff": "diffusion_2d_cond",
}
STYLES = tuple(STYLE_ALGORITHM)


@dataclass(frozen=True)
class HpcTaskSpec:
    """What one cell asks for: the values the configuration check compares against."""

    style: str
    algorithm: str
    problem_id: str
    seed: int
    epochs: int
    host: str
    check_interval: int = CHECK_INTERVAL
    max_checks: int = MAX_CHECKS
    n_samples: int = N_SAMPLES

    @property
    def natural(self) -> bool:
        return "natural" in self.style

    @property
    def prompt(self) -> str:
        return natural_prompt(self) if self.natural else explicit_prompt(self)


def explicit_prompt(task: HpcTaskSpec) -> str:
    return (
        f"Train a {task.algorithm} model on the {task.problem_id} problem on the HPC cluster "
        f"{task.host!r} and evaluate it. Follow these steps:\n"
        f"1. Call generate_training_command with algorithm={task.algorithm}, "
        f"problem_id={task.problem_id}, epochs={task.epochs}, seed={task.seed}.\n"
        f"2. Submit the generated script to {task.host} with submit_slurm_job.\n"
        f"3. Monitor the job with monitor_job_until_complete using "
        f"check_interval={task.check_interval}, max_checks={task.max_checks}.\n"
        f"4. Once the job has completed, call evaluate_model with problem_id={task.problem_id}, "
        f"algorithm={task.algorithm}, seed={task.seed}, n_samples={task.n_samples}, and report "
        "the metrics IOG, COG, FOG, MMD, DPP and the violation rate.\n"
        "Complete all steps in order; do not ask for clarification."
    )


def natural_prompt(task: HpcTaskSpec) -> str:
    name = "conditional GAN" if task.algorithm == "cgan_cnn_2d" else "conditional diffusion model"
    return (
        f"I need a {name} ({task.algorithm}) trained for the {task.problem_id} problem on our "
        f"cluster {task.host!r}, with seed {task.seed} and {task.epochs} epochs. Generate the "
        "SLURM training script with your tools rather than writing it by hand, submit it, and "
        "wait until the job has finished. Then evaluate the trained model with the "
        "model-evaluation tool (it downloads the job's outputs) and report the metrics it gives: "
        "IOG, COG, FOG, MMD, DPP and the violation rate. Do not ask me for clarification."
    )
