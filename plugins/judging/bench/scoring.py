"""A cell's numbers and details from its two gradings (EngJudge and the single pass).

Scores are plain numbers for the summary: a grading whose judge failed gives no score at all
(its `*_failed` flag is 1 and its failures are in the details), never a number made up for it.
Per stage: `raw_<S>` (the independent score Y_t) and `dep_<S>` (the propagated S_t). The
topology ablation (`base_dag`, `base_chain`, `base_flat`) re-propagates the same raw scores: the
judge is not asked again.
"""

from __future__ import annotations

from statistics import fmean
from typing import Any

from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.grade import Grade
from workbench_plugins.judging.solving import SolutionRun

TOPOLOGIES = ("dag", "chain", "flat")


def _stages() -> tuple[str, ...]:
    from workbench_plugins.judging.scoring.stages import STAGES

    return STAGES


def engjudge_scores(grade: Grade) -> dict[str, float]:
    """S_final and what it is made of, per stage raw and propagated, the ablation bases."""
    from workbench_plugins.judging.scoring.aggregate import propagate
    from workbench_plugins.judging.scoring.graphs import resolve_graph

    if grade.final is None or grade.breakdown is None:
        return {"judge_failed": 1.0}
    breakdown = grade.breakdown
    absent = list(grade.parsed.absent)
    scores: dict[str, float] = {
        "judge_failed": 0.0,
        "final": float(grade.final),
        "s_base": float(breakdown.s_base),
        "s_blend": float(breakdown.s_blend),
        "raw_mean": fmean(float(grade.raw.get(s, 0.0)) for s in _stages()),
        "missing_stages": float(len(absent)),
        "coverage_score": float(breakdown.coverage_score),
        "verbosity_score": float(breakdown.verbosity_score),
        "sanity_fail": float(bool(breakdown.sanity_fail)),
    }
    for stage in _stages():
        scores[f"raw_{stage}"] = float(grade.raw.get(stage, 0.0))
        scores[f"dep_{stage}"] = float(grade.propagated.get(stage, 0.0))
    for name in TOPOLOGIES:
        propagated = propagate(grade.raw, resolve_graph(name), absent=absent)
        scores[f"base_{name}"] = fmean(float(propagated.get(s, 0.0)) for s in _stages())
    return scores


def single_pass_scores(grade: Grade) -> dict[str, float]:
    if grade.single_pass is None or grade.single_pass_dp is None:
        return {"single_pass_failed": 1.0}
    return {
        "single_pass_failed": 0.0,
        "single_pass": float(grade.single_pass),
        "single_pass_dp": float(grade.single_pass_dp),
    }


def cost_scores(engjudge: Grade, single: Grade, generated: SolutionRun) -> dict[str, float]:
    """The judge's calls, tokens and time (both gradings), and the generator's."""
    calls = [*engjudge.judge_calls, *single.judge_calls]
    return {
        "judge_calls": float(len(calls)),
        "judge_calls_retried": float(sum(bool(call.retried) for call in calls)),
        "judge_tokens_in": float(sum(call.tokens_in for call in calls)),
        "judge_tokens_out": float(sum(call.tokens_out for call in calls)),
        "judge_seconds": round(sum(call.seconds for call in calls), 4),
        "engjudge_calls": float(len(engjudge.judge_calls)),
        "generator_calls": float(generated.calls),
        "generator_tokens_in": float(generated.tokens_in),
        "generator_tokens_out": float(generated.tokens_out),
        "generator_seconds": round(generated.seconds, 4),
    }


def cell_scores(engjudge: Grade, single: Grade, generated: SolutionRun) -> dict[str, float]:
    return {
        **engjudge_scores(engjudge),
        **single_pass_scores(single),
        **cost_scores(engjudge, single, generated),
    }


def cell_details(problem: Problem, engjudge: Grade, single: Grade) -> dict[str, Any]:
    """What the report and a reader need besides the numbers: the stage verdicts, what lowered
    the score, the final-answer check, every judge failure, the single pass's stage scores."""
    breakdown = engjudge.breakdown
    checked = engjudge.final_answer
    return {
        "problem_id": problem.id,
        "subject": problem.subject,
        "family": problem.family,
        "answer": f"{problem.answer_value:.6g} {problem.answer_unit}",
        "absent_stages": list(engjudge.parsed.absent),
        "lowered_by": list(breakdown.lowered_by) if breakdown is not None else [],
        "final_answer": checked.model_dump(mode="json") if checked is not None else None,
        "judgements": {
            stage: judgement.model_dump(mode="json")
            for stage, judgement in engjudge.judgements.items()
        },
        "judge_failures": [failure.model_dump(mode="json") for failure in engjudge.failures],
        "single_pass_failures": [failure.model_dump(mode="json") for failure in single.failures],
        "single_pass_stages": dict(getattr(single, "raw", {}) or {}),
        "judge_call_log": [
            call.model_dump(mode="json") for call in [*engjudge.judge_calls, *single.judge_calls]
        ],
    }
