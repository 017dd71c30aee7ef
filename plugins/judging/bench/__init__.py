"""The `engjudge` bench suite: a generator (`--model`) solves our problems in the 8 tagged
stages, a judge (`--judge`) grades each solution with EngJudge and the SinglePass baselines.

  suite.py         tasks (one per problem), a sealed cell: solve, solution.md, grade it
  policies.py      the direct generators: reference and the off-target ones
  templates.py     what a hand-written solution says at Equation Selection, per family
  scoring.py       a cell's numbers and details from its two gradings (EngJudge, single pass)
  rubric_judge.py  "rubric": a rule-based stand-in judge for CI (a fake, not a model)
  report.py        engjudge-report.md / .html / .png: per subject and per stage, EngJudge beside
                   SinglePass and SinglePass+DP (Tables 8, 9), the component and topology
                   ablations (Tables 4, 10), the stage correlations (Figure 5), the judge's cost
  ablation.py      Table 4: S_final without DP, meta checks or missing-stage penalty, per cell
  correlation.py   Figure 5: the Pearson matrix of the raw stage scores, table and heatmap
  validate.py      the CI validation with the rubric (reference >= 9, wrong equation capped and
                   the cap carried downstream, no stages 0, every grade bound to its file)
"""

from __future__ import annotations

from workbench.bench import Suite


def suites() -> list[Suite]:
    """Imported when the bench asks (the problem set is made on first use)."""
    from workbench_plugins.judging.bench.suite import suites as engjudge_suites

    return engjudge_suites()
