"""Who plays an HPC cell's tool calls.

- `reference`: the four optimal calls with the task's arguments, through the registry with the
  confirmation a person gives headless (`--yes`), then a report of the metrics as
  `NAME: value` taken from the evaluate_model result.
- `offtarget:<mistake>`: the reference with one characteristic mistake (OFF_TARGET), each with
  the scores it must get (validate.py checks them).
- `offtarget:fails-every-call` and `offtarget:claims-without-work` (workbench.bench.earned): the
  reference's four calls each refused by the registry, or no call and a final message stating
  metrics as if a model had been trained and evaluated. Both must score 0 on the headline.
- any other model spec: the agent (workbench.agents) on the task's prompt, the submit and
  cancel confirmations approved as a person running the benchmark would.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.bench import AgentBudget
from workbench.bench import tool_calls as recording
from workbench.bench.earned import CHEATS, CLAIMS_WITHOUT_WORK, claim_run, play_refused
from workbench.bench.tool_calls import HarnessFailure, PolicyRun
from workbench.core.context import AppContext
from workbench_plugins.hpc.bench.prompts import HpcTaskSpec

WRONG_SEED_OFFSET = 1  # "wrong-seed" trains (and evaluates) seed + 1
# model calls an agent gets per cell: the optimal run takes ~6 (hand-off, 4 calls, report);
# monitoring may need a second call when its checks run out
AGENT_MAX_MODEL_CALLS = 24
CONFIRMED_TOOLS = ("submit_slurm_job", "cancel_slurm_job")


@dataclass(frozen=True)
class OffTarget:
    """A characteristic mistake and the exact scores it must get (validate.py checks them)."""

    about: str
    expected: Mapping[str, float] = field(default_factory=dict)


# Hand-computed from A.3 (scoring.py): stopping after monitoring leaves evaluate uncalled, so
# w_eval = 0 and w_step = 0.85: score = 0.85 * 3/4 + 0.15 * 1 = 0.7875; TC 0; ToolEff 1 (3 steps
# done in 3 calls); CO = 0.6 * 0.7875 + 0.2 * 1 = 0.6725. The wrong seed does every step but fails
# the configuration check: score = 0.70 + 0 + 0.15 = 0.85; TC 0; CO = 0.6 * 0.85 + 0.2 = 0.71.
OFF_TARGET: dict[str, OffTarget] = {
    "stops-after-monitoring": OffTarget(
        "generates, submits and monitors, but never evaluates the model",
        {
            "hpc_score": 0.7875,
            "step_rate": 0.75,
            "config_ok": 1.0,
            "task_completion": 0.0,
            "tool_efficiency": 1.0,
            "overall": 0.6725,
        },
    ),
    "wrong-seed": OffTarget(
        f"trains and evaluates with seed + {WRONG_SEED_OFFSET} instead of the task's seed",
        {
            "hpc_score": 0.85,
            "step_rate": 1.0,
            "config_ok": 0.0,
            "metrics_extracted": 1.0,
            "metrics_verified": 1.0,
            "task_completion": 0.0,
            "tool_efficiency": 1.0,
            "overall": 0.71,
        },
    ),
}
# What claims-without-work states: the metrics the reference's seed-1 cells measured on the test
# cluster (validate.py's CI settings: 2 epochs, 8 samples), so the claim is as good as true
# numbers get; it still earns nothing, as no evaluation in its cell produced them.
CLAIMED_METRICS: dict[str, dict[str, float]] = {
    "cgan_cnn_2d": {
        "iog": 60.0724,
        "cog": 405.575,
        "fog": 0.0468663,
        "mmd": 0.241087,
        "dpp": 1.20981e-26,
        "viol": 0.875,
    },
    "diffusion_2d_cond": {
        "iog": 2.98135e9,
        "cog": 2.98136e9,
        "fog": 449.063,
        "mmd": 0.220277,
        "dpp": 0.253836,
        "viol": 1.0,
    },
}
REFERENCE_EXPECTED = {
    "hpc_score": 1.0,
    "step_rate": 1.0,
    "config_ok": 1.0,
    "metrics_extracted": 1.0,
    "metrics_verified": 1.0,
    "task_completion": 1.0,
    "tool_efficiency": 1.0,
    "overall": 1.0,
}


def report_text(result: Mapping[str, Any]) -> str:
    """The reference's final message: each metric as `NAME: value`, from the result itself."""
    names = {"iog": "IOG", "cog": "COG", "fog": "FOG", "mmd": "MMD", "dpp": "DPP", "viol": "viol"}
    values = ", ".join(f"{label}: {float(result[key])!r}" for key, label in names.items())
    trained = f"{result['algorithm']} (seed {result['seed']}, job {result['job_id']})"
    return f"Evaluated {trained}: {values}."


def reference_calls(task: HpcTaskSpec) -> list[tuple[str, dict[str, Any]]]:
    """The reference's four calls as fails-every-call makes them (each refused before it runs,
    so the script and job the later calls name are placeholders)."""
    return [
        (
            "generate_training_command",
            {
                "algorithm": task.algorithm,
                "problem_id": task.problem_id,
                "epochs": task.epochs,
                "seed": task.seed,
                "host": task.host,
            },
        ),
        ("submit_slurm_job", {"script_path": "hpc/scripts/train.sbatch", "host": task.host}),
        (
            "monitor_job_until_complete",
            {
                "job_id": "1",
                "host": task.host,
                "check_interval": task.check_interval,
                "max_checks": task.max_checks,
            },
        ),
        (
            "evaluate_model",
            {
                "problem_id": task.problem_id,
                "algorithm": task.algorithm,
                "seed": task.seed,
                "n_samples": task.n_samples,
                "job_id": "1",
                "host": task.host,
            },
        ),
    ]


def claim(task: HpcTaskSpec) -> str:
    """claims-without-work's final message: the reference's report, nothing behind it."""
    metrics = CLAIMED_METRICS[task.algorithm]
    return report_text({**metrics, "algorithm": task.algorithm, "seed": task.seed, "job_id": "1"})


def play_direct(model: str, task: HpcTaskSpec, app: AppContext) -> PolicyRun:
    if model == CLAIMS_WITHOUT_WORK:
        return claim_run(claim(task))
    if model in CHEATS:
        return play_refused(app, f"bench:{model}", reference_calls(task))
    mistake = model.removeprefix("offtarget:") if model.startswith("offtarget:") else ""
    if mistake and mistake not in OFF_TARGET:
        raise HarnessFailure(
            f"Unknown off-target policy {model!r}; known: "
            + ", ".join([*(f"offtarget:{name}" for name in OFF_TARGET), *CHEATS])
        )
    call = recording.RecordingToolCaller(app, f"bench:{model}", confirmed=True)  # as `--yes`
    seed = task.seed + WRONG_SEED_OFFSET if mistake == "wrong-seed" else task.seed
    generated = call(
        "generate_training_command",
        algorithm=task.algorithm,
        problem_id=task.problem_id,
        epochs=task.epochs,
        seed=seed,
        host=task.host,
    )
    submitted = call("submit_slurm_job", script_path=generated["script_path"], host=task.host)
    monitored = call(
        "monitor_job_until_complete",
        job_id=submitted["job_id"],
        host=task.host,
        check_interval=task.check_interval,
        max_checks=task.max_checks,
    )
    if monitored["state"] != "COMPLETED":
        raise HarnessFailure(
            f"the training job {submitted['job_id']} ended {monitored['state']} "
            f"(exit {monitored['exit_code']}): {monitored['log_tail'][-800:]}"
        )
    if mistake == "stops-after-monitoring":
        return PolicyRun(call.calls, call.texts)
    evaluated = call(
        "evaluate_model",
        problem_id=task.problem_id,
        algorithm=task.algorithm,
        seed=seed,
        n_samples=task.n_samples,
        job_id=submitted["job_id"],
        host=task.host,
    )
    answer = report_text(evaluated)
    return PolicyRun(call.calls, [*call.texts, answer], answer=answer)


def play_agent(
    model: str, task: HpcTaskSpec, app: AppContext, budget: AgentBudget | None = None
) -> PolicyRun:
    """The agent on the prompt: a model that answers badly scores low; an unreachable one is
    a harness failure (the cell is retried on resume)."""
    from workbench.agents import AgentRuntime, BackendError, HeadlessPolicy

    person = HeadlessPolicy(approve=CONFIRMED_TOOLS)
    limits = recording.agent_limits(budget, AGENT_MAX_MODEL_CALLS)
    result = recording.run_agent_cell(
        lambda: AgentRuntime(app, model, policy=person, **limits), task.prompt, BackendError
    )
    return recording.agent_policy_run(result)


def play(
    model: str, task: HpcTaskSpec, app: AppContext, budget: AgentBudget | None = None
) -> PolicyRun:
    return (
        play_direct(model, task, app)
        if recording.is_direct(model)
        else play_agent(model, task, app, budget)
    )
