"""The `modelica` bench suite: the Modelica Agent Workflow Benchmark's task packages, each in the
harness and in the plain loop, judged by the evaluator after the run.

  suite.py     tasks (package x mode), a sealed cell: run, submission.json, evaluator verdict
  policies.py  the direct policies: reference and the off-target ones
  report.py    modelica-report.md / .png: pass counts per workflow and difficulty per mode...
  validate.py  evaluator validation through the bench runner (reference passes all, off-target
               policies pass none)
"""

from __future__ import annotations

from workbench.bench import Suite


def suites() -> list[Suite]:
    """Imported when the bench asks (the task set loads on first use)."""
    from workbench_plugins.modelica.bench.suite import suites as modelica_suites

    return modelica_suites()
