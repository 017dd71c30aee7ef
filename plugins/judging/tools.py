"""The judging tools: list_problems, get_problem (never the answer) and grade_solution (EngJudge
with a judge model, its calls shown as a job's progress; the answer only once graded)."""

from __future__ import annotations

import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from workbench.core.events import JobCancelRequested, JobFinished, JobProgress, JobStarted
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.judging.problems.model import SUBJECTS, Problem
from workbench_plugins.judging.problems.registry import families, problem, problem_set

CALLS_PER_GRADING = 11  # one per stage and three meta checks (fewer when stages are missing)


class ListArgs(BaseModel):
    subject: str = Field("", description="Only this subject, e.g. heat_mass_transfer; empty: all")


class ProblemInfo(BaseModel):
    id: str
    subject: str
    family: str
    title: str
    asked: str


class ListResult(BaseModel):
    problems: list[ProblemInfo]
    note: str = Field(description="How to name other problems of the same families")


class ProblemArgs(BaseModel):
    problem_id: str = Field(..., description="A problem id, e.g. beam_point_load-s1")


class ProblemResult(BaseModel):
    id: str
    subject: str
    family: str
    title: str
    statement: str
    given: dict[str, str]
    asked: str
    answer_unit: str = Field(description="The unit the answer is expected in (not the answer)")
    diagram: str = Field(description="The diagram's PNG file (an artifact of the workspace)")


class GradeArgs(BaseModel):
    problem_id: str = Field(..., description="The problem the solution answers")
    solution_text: str = Field(..., description="The solution in the 8 tagged stages")
    judge_model: str = Field("", description="Judge model spec; empty: the settings' model")
    graph: str = Field("dag", description="Propagation graph: dag, chain or flat")


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


def known_problem(problem_id: str) -> Problem:
    """The problem, or a ToolFailure that says how to name one."""
    try:
        return problem(problem_id)
    except (ValueError, KeyError) as error:
        raise ToolFailure(
            str(error).strip("'\""), hint="Call list_problems for valid problem ids."
        ) from None


def list_problems(args: ListArgs, context: ToolContext) -> ListResult:
    if args.subject and args.subject not in SUBJECTS:
        raise ToolFailure(
            f"Unknown subject {args.subject!r}.", hint=f"Use one of: {', '.join(SUBJECTS)}."
        )
    listed = [
        ProblemInfo(id=p.id, subject=p.subject, family=p.family, title=p.title, asked=p.asked)
        for p in problem_set()
        if not args.subject or p.subject == args.subject
    ]
    example = next(iter(families()), "family")
    note = f"Any seed works too: '<family>-s<seed>', e.g. '{example}-s7'."
    return ListResult(problems=listed, note=note)


def get_problem(args: ProblemArgs, context: ToolContext) -> ProblemResult:
    item = known_problem(args.problem_id)
    with tempfile.TemporaryDirectory(prefix="judging-") as folder:
        path = Path(folder) / f"{item.id}.png"
        path.write_bytes(item.diagram_png())
        artifact = context.add_artifact(
            path, name=path.name, kind="image", meta={"problem_id": item.id}
        )
    return ProblemResult(
        id=item.id,
        subject=item.subject,
        family=item.family,
        title=item.title,
        statement=item.statement,
        given=dict(item.given),
        asked=item.asked,
        answer_unit=item.answer_unit,
        diagram=str(artifact.path),
    )


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
    spec = args.judge_model.strip() or context.app.settings.model
    judge = judge_model(spec, context)
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


def accepts_images(spec: str) -> bool:
    from workbench_plugins.judging.solving import accepts_images as by_name

    return by_name(spec)


def judge_model(spec: str, context: ToolContext) -> Any:
    from workbench.agents.backends import make_chat_model
    from workbench.agents.errors import BackendError

    try:
        return make_chat_model(spec, context.app.settings)
    except BackendError as error:
        raise ToolFailure(str(error), hint="Name a judge with judge_model.") from None


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


def tools() -> list[Tool]:
    return [
        Tool(
            "list_problems",
            "List the engineering problems (id, subject, family, what is asked).",
            ListArgs,
            ListResult,
            list_problems,
        ),
        Tool(
            "get_problem",
            "Show a problem: statement, given values, what is asked, and its diagram as a PNG "
            "file. Never the answer.",
            ProblemArgs,
            ProblemResult,
            get_problem,
            side_effect=SideEffect.WRITE,
        ),
        Tool(
            "grade_solution",
            "Grade a solution written in the 8 tagged stages against a problem, stage by stage "
            "(EngJudge): stage scores, the final score and what lowered it.",
            GradeArgs,
            GradeResult,
            grade_solution,
            side_effect=SideEffect.COMPUTE,
        ),
    ]
