"""The paper's baselines (seed 002, section 5.2 and Appendix F.2): ONE judge call scores all 8
stages at once, with the problem, the ground truth and the whole solution. SinglePass averages
these scores as they are; SinglePass + DP propagates them over the dependency graph first. No
missing-stage penalty, no meta checks, no code check of the final answer: that is the point of
the comparison."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field, field_validator

from workbench.core.settings import Settings
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.aggregate import propagate
from workbench_plugins.judging.scoring.grade import Grade
from workbench_plugins.judging.scoring.graphs import resolve_graph
from workbench_plugins.judging.scoring.judge import (
    CallRecord,
    Judge,
    JudgeSession,
    Question,
    judge_model,
)
from workbench_plugins.judging.scoring.parser import parse_solution
from workbench_plugins.judging.scoring.stages import STAGES, stage_of_tag


class StageScore(BaseModel):
    """One step's score in a single-pass verdict."""

    stage: str = Field(description='The step\'s code, e.g. "PC", "ES", "FA".')
    score: float = Field(ge=0, le=10, description="0-10; 10 is perfect.")
    reasoning: str = Field(default="", description="A brief justification.")


class SinglePassVerdict(BaseModel):
    """Scores for all 8 reasoning steps of a solution, in one verdict."""

    stages: list[StageScore] = Field(description="One entry for each of the 8 steps.")
    overall: str = Field(default="", description="A brief summary of the solution.")

    @field_validator("stages")
    @classmethod
    def _all_eight(cls, stages: list[StageScore]) -> list[StageScore]:
        codes = [stage_of_tag(item.stage) for item in stages]
        if None in codes or sorted(c or "" for c in codes) != sorted(STAGES):
            given = ", ".join(item.stage for item in stages)
            raise ValueError(f"need each of {', '.join(STAGES)} exactly once, got: {given}")
        for item, code in zip(stages, codes, strict=True):
            item.stage = code or item.stage
        return stages


def mean(scores: Mapping[str, float]) -> float:
    return sum(scores[stage] for stage in STAGES) / len(STAGES)


def grade_single_pass(
    problem: Problem,
    solution_text: str,
    judge: Judge | str,
    *,
    dp: bool = False,
    graph: str | Mapping[str, Any] = "dag",
    images: bool = False,
    settings: Settings | None = None,
    on_call: Callable[[CallRecord], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Grade:
    """SinglePass (dp=False) or SinglePass + DP (dp=True); one call fills both numbers."""
    table = resolve_graph(graph)
    session = JudgeSession(
        judge_model(judge, settings), problem, images=images, on_call=on_call, cancelled=cancelled
    )
    parsed = parse_solution(solution_text)
    question = Question("single_pass", "all", solution_text, parsed)
    verdict = session.ask(question, SinglePassVerdict)
    grade = Grade(
        problem_id=problem.id,
        method="single_pass_dp" if dp else "single_pass",
        graph=graph if isinstance(graph, str) else "custom",
        parsed=parsed,
        judge_calls=session.calls,
        failures=session.failures,
    )
    if verdict is None:
        return grade
    grade.raw = {item.stage: item.score for item in verdict.stages}
    grade.propagated = propagate(grade.raw, table)
    grade.single_pass = mean(grade.raw)
    grade.single_pass_dp = mean(grade.propagated)
    grade.final = grade.single_pass_dp if dp else grade.single_pass
    return grade
