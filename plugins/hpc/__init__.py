"""HPC: SLURM over SSH, the queue view, training pipelines, benchmarks that run on a cluster.

config.py                  settings: host profiles, ssh config, known_hosts, poll interval
remote.py                  the RemoteShell protocol the Slurm layer and the tools see
ssh/                       paramiko connections (one per host), host keys, ~/.ssh/config, errors
slurm/                     job scripts, the sbatch/squeue/scontrol/sacct client, the job tracker
events.py                  SlurmJobsUpdated, published after each poll of the tracked jobs
training/                  Beams2D training recipes, the dataset, the models, evaluate_outputs
specialist.py              the HPC specialist and its tool names
tools/                     the HPC tools: jobs.py (generate, submit, status, cancel), monitor.py,
                           outputs.py (download, evaluate), support.py (pool, tracker, host)
bench/                     the `hpc-beams2d` suite: prompts, scoring (A.3), policies, validate
views/                     the SLURM queue view (Qt);  perf.py: the 1,000-job benchmark
doctor_checks.py           the doctor's real per-host SSH + `sinfo --version` checks
trust.py                   `python -m workbench_plugins.hpc.trust HOST`: accept a host key headless
executor.py                `bench --executor slurm`: bench cells as a Slurm job array
"""

from workbench.core.plugins import Plugin, ViewSpec
from workbench_plugins.hpc.config import HpcSettings
from workbench_plugins.hpc.specialist import TOOLS, specialist

plugin = Plugin(
    name="hpc",
    title="HPC",
    description="Submit and follow SLURM jobs over SSH; train and evaluate models on a cluster.",
    tools="workbench_plugins.hpc.tools:tools",
    specialist=specialist,
    views=(
        ViewSpec(
            name="queue",
            title="SLURM queue",
            factory="workbench_plugins.hpc.views:queue_view",
            shows=TOOLS,
        ),
    ),
    suites="workbench_plugins.hpc.bench:suites",
    settings=HpcSettings,
    checks="workbench_plugins.hpc.doctor_checks:checks",
    executors="workbench_plugins.hpc.executor:executors",
)
