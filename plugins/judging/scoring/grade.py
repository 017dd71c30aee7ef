"""The result of grading one solution, EngJudge or a single-pass baseline: everything from the
parsed stages to the final score, with every judge call and failure."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from workbench_plugins.judging.scoring.aggregate import Breakdown, MetaJudgement, StageJudgement
from workbench_plugins.judging.scoring.final_answer import FinalAnswerCheck
from workbench_plugins.judging.scoring.judge import CallRecord, JudgeFailure
from workbench_plugins.judging.scoring.parser import ParsedSolution

Method = Literal["engjudge", "single_pass", "single_pass_dp"]


class Grade(BaseModel):
    """One graded solution. `final` is None whenever a judge call failed: a failure is never
    turned into a number. For the single-pass baselines one call fills both `single_pass`
    (mean of the raw stage scores) and `single_pass_dp` (mean after propagation); `final` is the
    one `method` names."""

    problem_id: str
    method: Method
    graph: str
    parsed: ParsedSolution
    judgements: dict[str, StageJudgement] = Field(default_factory=dict)
    final_answer: FinalAnswerCheck | None = None
    meta: MetaJudgement | None = None
    raw: dict[str, float] = Field(default_factory=dict)
    propagated: dict[str, float] = Field(default_factory=dict)
    breakdown: Breakdown | None = None
    final: float | None = None
    single_pass: float | None = None
    single_pass_dp: float | None = None
    judge_calls: list[CallRecord] = Field(default_factory=list)
    failures: list[JudgeFailure] = Field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Every judge call gave a verdict, so `final` is a number."""
        return not self.failures and self.final is not None

    @property
    def tokens_in(self) -> int:
        return sum(call.tokens_in for call in self.judge_calls)

    @property
    def tokens_out(self) -> int:
        return sum(call.tokens_out for call in self.judge_calls)

    @property
    def seconds(self) -> float:
        return sum(call.seconds for call in self.judge_calls)
