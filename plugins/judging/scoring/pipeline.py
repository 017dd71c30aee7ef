"""EngJudge end to end (seed 002, Figure 2): parse the tagged solution, judge each present stage
(one call each), check the final answer with our code, run the three meta checks, then score:
raw stage scores, propagation over the chosen graph, S_final and what lowered it.

Calls run one after another in STAGES order, then coverage, verbosity, sanity: 11 for a complete
solution, fewer when stages are absent (an absent stage is not sent to the judge). `on_call`
hears of each call as it ends (progress); `cancelled()` is asked before each call and stops the
grading with GradingCancelled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from workbench.core.settings import Settings
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.aggregate import (
    StageJudgement,
    final_score,
    propagate,
    raw_score,
)
from workbench_plugins.judging.scoring.baselines import grade_single_pass
from workbench_plugins.judging.scoring.final_answer import FinalAnswerCheck, check_final_answer
from workbench_plugins.judging.scoring.grade import Grade
from workbench_plugins.judging.scoring.graphs import resolve_graph
from workbench_plugins.judging.scoring.judge import (
    CallRecord,
    GradingCancelled,
    Judge,
    JudgeFailure,
    JudgeSession,
    judge_model,
)
from workbench_plugins.judging.scoring.parser import parse_solution

__all__ = [  # the names the tools, the suite and the panel import from here
    "CallRecord",
    "Grade",
    "GradingCancelled",
    "JudgeFailure",
    "grade",
    "grade_single_pass",
]


def merge_final_answer(judgement: StageJudgement, check: FinalAnswerCheck) -> StageJudgement:
    """The FA stage as scored: the judge's errors (completeness, presentation) plus our code's
    (value band, units), and both sets of fatal flags."""
    fatal = list(dict.fromkeys([*judgement.fatal, *check.fatal]))
    return StageJudgement.model_validate(
        {
            "stage": "FA",
            "errors": [*judgement.errors, *check.errors],
            "fatal": fatal,
            "comment": f"{judgement.comment} [code check: {check.note}]".strip(),
            "source": "judge+code",
        }
    )


def grade(
    problem: Problem,
    solution_text: str,
    judge: Judge | str,
    *,
    graph: str | Mapping[str, Any] = "dag",
    images: bool = False,
    settings: Settings | None = None,
    on_call: Callable[[CallRecord], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Grade:
    """Grade `solution_text` for `problem` with EngJudge; `judge` is a chat model, a rule judge
    or a model spec ("ollama:...", "scripted:<file>"); `images` sends the diagram to a model."""
    table = resolve_graph(graph)
    parsed = parse_solution(solution_text)
    session = JudgeSession(
        judge_model(judge, settings), problem, images=images, on_call=on_call, cancelled=cancelled
    )
    judgements: dict[str, StageJudgement] = {}
    for stage in parsed.present:
        verdict = session.judge_stage(stage, parsed.stages[stage])
        if verdict is not None:
            judgements[stage] = StageJudgement(stage=stage, **verdict.model_dump())
    check = check_final_answer(parsed.stages.get("FA"), problem)
    if "FA" in judgements:
        judgements["FA"] = merge_final_answer(judgements["FA"], check)
    meta = session.judge_meta(solution_text, parsed)
    raw = {stage: 0.0 for stage in parsed.absent}
    raw.update({stage: raw_score(judgement) for stage, judgement in judgements.items()})
    propagated = propagate(raw, table, parsed.absent)
    result = Grade(
        problem_id=problem.id,
        method="engjudge",
        graph=graph if isinstance(graph, str) else "custom",
        parsed=parsed,
        judgements=judgements,
        final_answer=check,
        meta=meta,
        raw=raw,
        propagated=propagated,
        judge_calls=session.calls,
        failures=session.failures,
    )
    if meta is not None and not session.failures:
        result.breakdown = final_score(raw, propagated, meta, parsed.absent, judgements)
        result.final = result.breakdown.s_final
    return result
