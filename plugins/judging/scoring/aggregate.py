"""From judgements to scores, exactly as ../shared/specs/engjudge.md says (seed 002, Eq. 1-9).

- raw stage score Y_t = max(0, 10 - sum of penalties) (minor 2, moderate 4, major 7, critical 10),
  then capped by the lowest fatal cap of the stage (FATAL_CAPS).
- propagation S_t = Y_t * mean over parents p of S_p / 10; a stage without parents keeps Y_t.
- S_base = mean of S_t over the 8 stages; S_blend = max(0, S_base - 2.0 per absent stage);
  S_final = S_blend * (1 - COVERAGE) * (1 - VERBOSITY) * 0.9^SANITY_FAIL with
  COVERAGE = min(0.5, (10 - CS) * 0.10) and VERBOSITY = min(0.5, (10 - VS) * 0.10).

Absent stages (missing, or tagged but empty) are not judged: they score 0 in the mean, pass that 0
on to their children like a stage written with raw score 0, and pay the missing-stage penalty on
top. So leaving a stage out is never better than writing it badly: the penalty exists so that a
model cannot bypass stages (seed 002, C.3.1), and skipping an absent parent would reward exactly
that (on the dag, ES left out scored 6.75 where ES written with raw 0 scored 6.25). A stage whose
judge call failed has no score; neither has anything downstream of it, and no final score is
computed (never a made-up number).

The fatal flag "physically_impossible_result" (cap 2) is the final-answer check of the paper's
Appendix F; the other four are its Table 7.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from workbench_plugins.judging.scoring.graphs import resolve_graph, topological_order
from workbench_plugins.judging.scoring.stages import STAGE_NAMES, STAGES

Severity = Literal["minor", "moderate", "major", "critical"]
PENALTIES: dict[str, int] = {"minor": 2, "moderate": 4, "major": 7, "critical": 10}

FatalFlag = Literal[
    "governing_equation_incorrect",
    "physical_model_invalid",
    "dimensionally_inconsistent",
    "boundary_conditions_invalid",
    "physically_impossible_result",
]
FATAL_CAPS: dict[str, int] = {
    "governing_equation_incorrect": 3,
    "physical_model_invalid": 4,
    "dimensionally_inconsistent": 2,
    "boundary_conditions_invalid": 4,
    "physically_impossible_result": 2,
}
FATAL_LABELS: dict[str, str] = {
    "governing_equation_incorrect": "governing equation incorrect",
    "physical_model_invalid": "physical model invalid",
    "dimensionally_inconsistent": "dimensionally inconsistent",
    "boundary_conditions_invalid": "boundary conditions invalid",
    "physically_impossible_result": "physically impossible result",
}
MISSING_STAGE_PENALTY = 2.0
SANITY_FACTOR = 0.9


def _words_to_flag(value: Any) -> Any:
    """'Governing equation incorrect' and 'governing_equation_incorrect' name the same flag."""
    return "_".join(value.lower().replace("-", " ").split()) if isinstance(value, str) else value


class StageError(BaseModel):
    """One error found in a stage, with its severity (minor 2, moderate 4, major 7, critical 10)."""

    description: str = Field(description="What is wrong, in one sentence.")
    severity: Severity = Field(description="minor, moderate, major or critical.")

    @field_validator("severity", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class StageVerdict(BaseModel):
    """The judge's verdict on one stage: the errors found (an empty list when the stage is
    right) and any fatal errors. `errors` is required: a verdict that leaves it out said
    nothing about the stage, so it is a failed judge call (retried, then recorded), never a
    clean stage scored 10."""

    errors: list[StageError] = Field(
        description="Each error found in this stage, with its severity; [] when none."
    )
    fatal: list[FatalFlag] = Field(
        default_factory=list,
        description=(
            "Fatal errors, if any: governing_equation_incorrect (caps the stage at 3), "
            "physical_model_invalid (4), dimensionally_inconsistent (2), "
            "boundary_conditions_invalid (4), physically_impossible_result (2)."
        ),
    )
    comment: str = Field(default="", description="A short justification.")

    @field_validator("fatal", mode="before")
    @classmethod
    def _flags(cls, value: Any) -> Any:
        return [_words_to_flag(item) for item in value] if isinstance(value, list) else value


class StageJudgement(StageVerdict):
    """A stage's verdict as scored: the judge's, with the final answer's code check merged in."""

    stage: str
    source: Literal["judge", "judge+code"] = "judge"


class MetaJudgement(BaseModel):
    """The three checks of the whole solution: coverage and verbosity 0-10 (10 is best) and
    whether a physical sanity check failed."""

    coverage: float = Field(ge=0, le=10)
    verbosity: float = Field(ge=0, le=10)
    sanity_fail: bool
    comments: dict[str, str] = Field(default_factory=dict)


class Breakdown(BaseModel):
    """Every number between the stage scores and S_final, and what lowered the score."""

    stage_scores: dict[str, float]  # S_t after propagation
    s_base: float
    missing: list[str]
    missing_penalty: float
    s_blend: float
    coverage_score: float
    coverage: float  # the fraction taken off, 0-0.5
    verbosity_score: float
    verbosity: float  # the fraction taken off, 0-0.5
    sanity_fail: bool
    s_final: float
    lowered_by: list[str]


def raw_score(judgement: StageVerdict) -> float:
    """Y_t: 10 minus the penalties (never below 0), then the lowest fatal cap."""
    penalty = sum(PENALTIES[error.severity] for error in judgement.errors)
    caps = [float(FATAL_CAPS[flag]) for flag in judgement.fatal]
    return min([max(0.0, 10.0 - penalty), *caps])


def propagate(
    raw: Mapping[str, float],
    graph: str | Mapping[str, tuple[str, ...] | list[str]] = "dag",
    absent: Sequence[str] = (),
) -> dict[str, float]:
    """S_t = Y_t * mean(S_p / 10) over all the parents; an absent stage scores 0 and passes 0
    on, as a parent written with raw 0 would. A stage that is not in `raw` (its judge call
    failed) is left out, with everything below it."""
    table = resolve_graph(graph)
    scores: dict[str, float] = {}
    for stage in topological_order(table):
        if stage in absent:
            scores[stage] = 0.0
            continue
        parents = table[stage]
        if stage not in raw or any(parent not in scores for parent in parents):
            continue
        if not parents:
            scores[stage] = float(raw[stage])
        else:
            scores[stage] = raw[stage] * sum(scores[p] / 10.0 for p in parents) / len(parents)
    return scores


def meta_fraction(score: float) -> float:
    """COVERAGE or VERBOSITY from a 0-10 rating: 10 % per point below 10, at most 50 %."""
    return min(0.5, max(0.0, (10.0 - score) * 0.10))


def final_score(
    raw: Mapping[str, float],
    propagated: Mapping[str, float],
    meta: MetaJudgement,
    absent: Sequence[str] = (),
    judgements: Mapping[str, StageVerdict] | None = None,
) -> Breakdown:
    """S_base, the missing-stage penalty, S_blend, the three meta multipliers and S_final."""
    unscored = [stage for stage in STAGES if stage not in propagated]
    if unscored:
        raise ValueError(
            f"Stages {', '.join(unscored)} have no score (a judge call failed): no final score."
        )
    missing = [stage for stage in STAGES if stage in absent]
    s_base = sum(propagated[stage] for stage in STAGES) / len(STAGES)
    missing_penalty = MISSING_STAGE_PENALTY * len(missing)
    s_blend = max(0.0, s_base - missing_penalty)
    coverage, verbosity = meta_fraction(meta.coverage), meta_fraction(meta.verbosity)
    sanity = SANITY_FACTOR if meta.sanity_fail else 1.0
    s_final = s_blend * (1.0 - coverage) * (1.0 - verbosity) * sanity
    breakdown = Breakdown(
        stage_scores={stage: propagated[stage] for stage in STAGES},
        s_base=s_base,
        missing=missing,
        missing_penalty=missing_penalty,
        s_blend=s_blend,
        coverage_score=meta.coverage,
        coverage=coverage,
        verbosity_score=meta.verbosity,
        verbosity=verbosity,
        sanity_fail=meta.sanity_fail,
        s_final=s_final,
        lowered_by=[],
    )
    breakdown.lowered_by = lowered_by(breakdown, raw, judgements or {})
    return breakdown


def _reasons(judgement: StageVerdict | None) -> str:
    if judgement is None:
        return ""
    parts = [f"{e.severity} -{PENALTIES[e.severity]}: {e.description}" for e in judgement.errors]
    parts += [f"capped at {FATAL_CAPS[f]}: {FATAL_LABELS[f]}" for f in judgement.fatal]
    return f" ({'; '.join(parts)})" if parts else ""


def lowered_by(
    breakdown: Breakdown, raw: Mapping[str, float], judgements: Mapping[str, StageVerdict]
) -> list[str]:
    """Human lines, stages first, then the penalty and the checks: what took points off and how
    many (on the base score for stages; the checks' points add up to S_blend - S_final)."""
    share = 1.0 / len(STAGES)
    lines: list[str] = []
    for stage in STAGES:
        name = f"{stage} {STAGE_NAMES[stage]}"
        if stage in breakdown.missing:
            lines.append(f"{name} is missing: it scores 0 (-{10 * share:.2f} on the base score).")
            continue
        own, after = raw.get(stage, 10.0), breakdown.stage_scores[stage]
        if own < 10.0:
            lines.append(
                f"{name} scored {own:g}/10{_reasons(judgements.get(stage))}: "
                f"-{(10.0 - own) * share:.2f} on the base score."
            )
        if after < own:
            lines.append(
                f"{name} fell from {own:g} to {after:.2f} through the stages it depends on: "
                f"-{(own - after) * share:.2f} on the base score."
            )
    if breakdown.missing_penalty:
        lines.append(
            f"Missing-stage penalty: -{breakdown.missing_penalty:g} "
            f"({MISSING_STAGE_PENALTY:g} for each of {', '.join(breakdown.missing)})."
        )
    value = breakdown.s_blend
    for label, fraction in (
        (f"Coverage {breakdown.coverage_score:g}/10", breakdown.coverage),
        (f"Verbosity {breakdown.verbosity_score:g}/10", breakdown.verbosity),
        ("Physical sanity check failed", 1.0 - SANITY_FACTOR if breakdown.sanity_fail else 0.0),
    ):
        if fraction > 0:
            lines.append(f"{label}: -{fraction * 100:.0f} % (-{value * fraction:.2f} points).")
            value *= 1.0 - fraction
    return lines
