"""The judging tools: list_problems, get_problem (never the answer) and grade_solution (EngJudge
with a judge model, its calls shown as a job's progress; the answer only once graded).

- `problems`: list_problems, get_problem
- `grading`: grade_solution
"""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.judging.tools.grading import GradeArgs, GradeResult, grade_solution
from workbench_plugins.judging.tools.problems import (
    ListArgs,
    ListResult,
    ProblemArgs,
    ProblemResult,
    get_problem,
    list_problems,
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
