"""The `hpc-beams2d` bench suite: a training job on a real cluster, scored by Appendix A.3.

suite.py     the tasks and running one (a sealed cell; settings from WORKBENCH_HPC_* variables)
prompts.py   the task specs and their prompt styles
scoring.py   the A.3 scores of a run's tool calls
policies.py  the reference and off-target policies validate.py runs
validate.py  the evaluator's validation on a real cluster
"""

from __future__ import annotations

from workbench.bench import Suite


def suites() -> list[Suite]:
    from workbench_plugins.hpc.bench.suite import suites as hpc_suites

    return hpc_suites()
