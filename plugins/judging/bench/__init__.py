"""The `engjudge` bench suite: a generator (`--model`) solves our problems in the 8 tagged
stages, a judge (`--judge`) grades each solution with EngJudge and the SinglePass baselines.

  suite.py         tasks (one per problem), a sealed cell: solve, solution.md, grade it
  policies.py      the direct generators: reference and the off-target ones
  templates.py     what a hand-written solution says at Equation Selection, per family
  rubric_judge.py  "rubric": a rule-based stand-in judge for CI (a fake, not a model)
  report.py        engjudge-report.md / .png: per subject and per stage, EngJudge beside
                   SinglePass and SinglePass+DP, the topology ablation, the judge's cost
  validate.py      the CI validation (reference >= 9, wrong equation capped, SinglePass lenient)
"""

from __future__ import annotations

from workbench.bench import Suite


def suites() -> list[Suite]:
    """Imported when the bench asks (the problem set is made on first use)."""
    from workbench_plugins.judging.bench.suite import suites as engjudge_suites

    return engjudge_suites()
