"""The paper's component ablation (seed 002, Table 4), recomputed from the parts every cell
stores, without asking the judge again: S_final with one component of EngJudge taken out.

  EngJudge (Full Framework)           S_final as graded
  EngJudge w/o DP                     the raw stage scores' mean (the flat base) in place of the
                                      propagated S_base, then the penalty and the meta checks
  EngJudge w/o Meta Eval Checks       S_blend: no coverage, verbosity or sanity multiplier
  EngJudge w/o Missing Stage Penalty  S_base times the meta multipliers, no 2 points per stage
"""

from __future__ import annotations

from collections.abc import Mapping

from workbench_plugins.judging.scoring.aggregate import (
    MISSING_STAGE_PENALTY,
    SANITY_FACTOR,
    meta_fraction,
)

# (score name, the paper's row name)
ABLATIONS: tuple[tuple[str, str], ...] = (
    ("full", "EngJudge (Full Framework)"),
    ("without_dp", "EngJudge w/o DP"),
    ("without_meta", "EngJudge w/o Meta Eval Checks"),
    ("without_missing_penalty", "EngJudge w/o Missing Stage Penalty"),
)
# the parts a cell must have stored (a cell whose judge failed has none of them)
PARTS = (
    "final",
    "s_base",
    "base_flat",
    "missing_stages",
    "coverage_score",
    "verbosity_score",
    "sanity_fail",
)


def meta_multiplier(scores: Mapping[str, float]) -> float:
    """(1 - COVERAGE) (1 - VERBOSITY) 0.9^SANITY_FAIL from the cell's stored ratings."""
    coverage = meta_fraction(float(scores["coverage_score"]))
    verbosity = meta_fraction(float(scores["verbosity_score"]))
    sanity = SANITY_FACTOR if float(scores["sanity_fail"]) else 1.0
    return (1.0 - coverage) * (1.0 - verbosity) * sanity


def ablated(scores: Mapping[str, float]) -> dict[str, float] | None:
    """Each ablation's score for one cell, or None when the cell has no EngJudge score."""
    if any(name not in scores for name in PARTS):
        return None
    multiplier = meta_multiplier(scores)
    penalty = MISSING_STAGE_PENALTY * float(scores["missing_stages"])
    s_base = float(scores["s_base"])
    return {
        "full": float(scores["final"]),
        "without_dp": max(0.0, float(scores["base_flat"]) - penalty) * multiplier,
        "without_meta": max(0.0, s_base - penalty),
        "without_missing_penalty": s_base * multiplier,
    }
