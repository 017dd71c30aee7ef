"""The `modelica` bench suite: the Modelica Agent Workflow Benchmark's task packages, each in the
harness and in the plain loop, judged by the evaluator after the run.

  suite.py         tasks (package x mode), a cell: run, submission.json, evaluator verdict,
                   `passed` bound to the submitted bytes (a CellResult)
  policies.py      the direct policies: reference and the off-target ones
  cheats.py        the two that cheat: fails-every-call, claims-without-work
  report.py        modelica-report.md / .png / .html: Table 4, pass counts per workflow and
                   difficulty per mode, failure stages, tokens and time per task
  paper_tables.py  Pufibara's Table 4a-c (the harness against the plain loop, per model)
  validate.py      evaluator validation through the bench runner (reference passes all, the
                   off-target and cheating policies pass none)
"""

from __future__ import annotations

from workbench.bench import Suite


def suites() -> list[Suite]:
    """Imported when the bench asks (the task set loads on first use)."""
    from workbench_plugins.modelica.bench.suite import suites as modelica_suites

    return modelica_suites()
