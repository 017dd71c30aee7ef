"""The `hpc-beams2d` bench suite: a training job on a real cluster, scored by Appendix A.3.

suite.py     the tasks and running one (a sealed cell; settings from WORKBENCH_HPC_* variables)
prompts.py   the task specs and their prompt styles
scoring.py   the A.3 scores of a run's tool calls (only succeeded work counts)
policies.py  the reference, off-target and cheating policies validate.py runs
validate.py  the evaluator's validation on a real cluster
report.py    hpc-report.html: Figure 7 and Figures 8-9 (paper_figures.py) beside the baselines
             computed here (baselines.py)
"""

from __future__ import annotations

from workbench.bench import Suite


def suites() -> list[Suite]:
    from workbench_plugins.hpc.bench.suite import suites as hpc_suites

    return hpc_suites()
