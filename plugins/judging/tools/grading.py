"""grade_solution: EngJudge with a judge model, its calls shown as a job's progress on the
app's bus; the answer is given only once graded."""

from __future__ import annotations

import threading
import uuid
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, field_validator

from workbench.core.events import JobCancelRequested, JobFinished, JobProgress, JobStarted
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.judging.tools.problems import known_problem

if TYPE_CHECKING:  # the problems (pint) load at the first call, not when tools register
    from workbench_plugins.judging.problems.model import Problem

CALLS_PER_GRADING = 11  # one per stage and three meta checks (fewer when stages are missing)
# a solution in 8 stages is a few thousand characters; more is not a solution, and each of the
# 11 judge calls would carry it
MAX_SOLUTION_CHARS = 50_000


class GradeArgs(BaseModel):
    problem_id: str = Field(..., description="The problem the solution answers")
    solution_text: str = Field(
        ...,
        description=f"The solution in the 8 tagged stages, at most {MAX_SOLUTION_CHARS} characters",
    )
    judge_model: str = Field(
        "", description="A model profile's name; empty: the settings' model (never a URL or file)"
    )
    graph: str = Field("dag", description="Propagation graph: dag, chain or flat")

    @field_validator("solution_text")
    @classmethod
    def _gradable(cls, text: str) -> str:
        """Refused before any judge call: a blank solution has nothing to grade, and an
        over-long one is not a solution (the limit is said in the refusal)."""
        if not text.strip():
            raise ValueError("the solution is blank: write it in the 8 tagged stages")
        if len(text) > MAX_SOLUTION_CHARS:
            raise ValueError(
                f"the solution has {len(text):,} characters, over the limit of "
                f"{MAX_SOLUTION_CHARS:,}: shorten it"
            )
        return text


class StageScore(BaseModel):
    stage: str
    raw: float = Field(description="Independent score Y_t, 0-10")
    propagated: float = Field(description="Dependent score S_t after propagation, 0-10")
    errors: list[str] = Field(description="Errors the judge found, with their severity")
    fatal: list[str]


class GradeResult(BaseModel):
    problem_id: str
    final: float | None = Field(description="S_final, 0-10; None when a judge call failed")
    stages: list[StageScore]
    lowered_by: list[str]
    missing_stages: list[str]
    judge_failures: list[str]
    judge_calls: int
    tokens_in: int
    tokens_out: int
    seconds: float
    answer: str = Field(description="The ground truth, given only after grading")
    summary: str


class GradingJob:
    """The grading as a job on the app's bus: started, one progress per judge call, finished;
    a person's Cancel (JobCancelRequested) stops it before the next call."""

    def __init__(self, context: ToolContext, item: Problem) -> None:
        self.bus = context.app.bus
        self.job_id = f"judging:{item.id}:{uuid.uuid4().hex[:8]}"
        self.title = f"Grading {item.id}"
        self.calls = 0
        self.cancel = threading.Event()

    def on_cancel(self, event: JobCancelRequested) -> None:
        if event.job_id == self.job_id:
            self.cancel.set()

    def on_call(self, record: Any) -> None:
        self.calls += 1
        what = f"{record.kind} {record.stage}".strip()
        state = "ok" if record.ok else "failed"
        self.bus.publish(
            JobProgress(
                job_id=self.job_id,
                fraction=min(1.0, self.calls / CALLS_PER_GRADING),
                message=f"judge call {self.calls}: {what} ({state})",
                data={"kind": record.kind, "stage": record.stage, "ok": record.ok},
            )
        )


def grade_solution(args: GradeArgs, context: ToolContext) -> GradeResult:
    from workbench_plugins.judging.scoring.graphs import GraphError, resolve_graph
    from workbench_plugins.judging.scoring.judge import GradingCancelled
    from workbench_plugins.judging.scoring.pipeline import grade

    item = known_problem(args.problem_id)
    try:
        resolve_graph(args.graph)
    except GraphError as wrong_graph:
        raise ToolFailure(str(wrong_graph)) from None
    judge, spec = judge_model(args.judge_model, context)
    job = GradingJob(context, item)
    context.app.bus.publish(JobStarted(job_id=job.job_id, title=job.title))
    unsubscribe = context.app.bus.subscribe(JobCancelRequested, job.on_cancel)
    status, reason = "failed", ""
    try:
        graded = grade(
            item,
            args.solution_text,
            judge,
            graph=args.graph,
            images=accepts_images(spec),
            on_call=job.on_call,
            cancelled=job.cancel.is_set,
        )
        if graded.final is None:  # a grading without a score is a failure, never "ok"
            raise ToolFailure(no_score_message(item, graded), hint=NO_SCORE_HINT)
        status = "done"
    except GradingCancelled:
        status = "cancelled"
        raise ToolFailure(
            f"Grading of {item.id} was cancelled after {job.calls} judge call(s); no score."
        ) from None
    except Exception as failure:
        reason = str(failure)
        raise
    finally:
        unsubscribe()
        context.app.bus.publish(JobFinished(job_id=job.job_id, status=status, error=reason))
    return grade_result(item, graded)


NO_SCORE_HINT = "Grade again, or name another judge with judge_model."


def no_score_message(item: Problem, graded: Any) -> str:
    """Why a grading gave no score: its judge calls that failed."""
    failed = "; ".join(f"{f.kind} {f.stage}: {f.reason}" for f in graded.failures)
    return (
        f"{item.id}: no score, {len(graded.failures)} judge call(s) gave no usable verdict"
        f" ({failed or 'no reason recorded'})."
    )


def accepts_images(spec: str) -> bool:
    from workbench_plugins.judging.solving import accepts_images as by_name

    return by_name(spec)


def judge_model(name: str, context: ToolContext) -> tuple[Any, str]:
    """The judge a caller named (a model profile only: a caller-chosen URL would receive the
    person's key, a file would be read outside the workspace) and the full spec it stands for."""
    from workbench.agents.backends import make_caller_model
    from workbench.agents.errors import BackendError
    from workbench.core.settings_model_access import spec_of

    settings = context.app.settings
    try:
        judge, chosen = make_caller_model(name, settings)
    except BackendError as error:
        raise ToolFailure(str(error), hint="Name a judge with judge_model.") from None
    return judge, spec_of(chosen, settings)


def grade_result(item: Problem, graded: Any) -> GradeResult:
    """The breakdown in plain terms: stage scores, what lowered the score, failures."""
    from workbench_plugins.judging.scoring.aggregate import FATAL_LABELS
    from workbench_plugins.judging.scoring.stages import STAGES

    stages = []
    for stage in STAGES:
        judgement = graded.judgements.get(stage)
        errors = [f"{e.severity}: {e.description}" for e in judgement.errors] if judgement else []
        fatal = [FATAL_LABELS.get(f, f) for f in judgement.fatal] if judgement else []
        stages.append(
            StageScore(
                stage=stage,
                raw=round(float(graded.raw.get(stage, 0.0)), 3),
                propagated=round(float(graded.propagated.get(stage, 0.0)), 3),
                errors=errors,
                fatal=fatal,
            )
        )
    failures = [f"{f.kind} {f.stage}: {f.reason}" for f in graded.failures]
    breakdown = graded.breakdown
    final = None if graded.final is None else round(float(graded.final), 3)
    summary = (
        f"{item.id}: S_final = {final:.2f} / 10."
        if final is not None
        else f"{item.id}: no score, {len(failures)} judge call(s) failed."
    )
    return GradeResult(
        problem_id=item.id,
        final=final,
        stages=stages,
        lowered_by=list(breakdown.lowered_by) if breakdown is not None else [],
        missing_stages=list(graded.parsed.absent),
        judge_failures=failures,
        judge_calls=len(graded.judge_calls),
        tokens_in=int(graded.tokens_in),
        tokens_out=int(graded.tokens_out),
        seconds=round(float(graded.seconds), 3),
        answer=f"{item.answer_value:.6g} {item.answer_unit}",
        summary=summary,
    )
