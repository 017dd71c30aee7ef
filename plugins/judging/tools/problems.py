"""list_problems and get_problem: the problem set by subject, and one problem's statement,
given values and diagram (never its answer)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from workbench.core.tools import ToolContext, ToolFailure

if TYPE_CHECKING:  # the problems (pint, 0.35 s) load at the first call, not when tools register
    from workbench_plugins.judging.problems.model import Problem


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


def known_problem(problem_id: str) -> Problem:
    """The problem, or a ToolFailure that says how to name one."""
    from workbench_plugins.judging.problems.registry import problem

    try:
        return problem(problem_id)
    except (ValueError, KeyError) as error:
        raise ToolFailure(
            str(error).strip("'\""), hint="Call list_problems for valid problem ids."
        ) from None


def list_problems(args: ListArgs, context: ToolContext) -> ListResult:
    from workbench_plugins.judging.problems.model import SUBJECTS
    from workbench_plugins.judging.problems.registry import families, problem_set

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
