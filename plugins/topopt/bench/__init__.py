"""The EngiAI workflow benchmark on our tools: seven prompt styles on Beams2D, three on
Photonics2D, ground truth optimised offline, the paper's scoring, validation policies, reports.

tasks.py (styles, conditions; draws.py the export parameters, prompts.py the texts) ->
ground_truth.py (cached optimisations) -> policies.py (who plays the calls) -> scoring.py
(sub-scores) -> suite.py (the bench Suite, timing.py its EngiBench clock) -> report.py
(global_metrics.py: MMD, DPP, IOG/COG/FOG, RVC). validate.py: the evaluators checked against
the reference and the off-target policies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.bench import Suite


def suites() -> list[Suite]:
    """`workflow-beams2d` and `workflow-photonics2d`; imported only when the bench asks."""
    from workbench_plugins.topopt.bench.suite import suites as workflow_suites

    return workflow_suites()
