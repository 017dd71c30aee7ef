"""Tools that describe a problem or ask the engineer: no computation, nothing written."""

from __future__ import annotations

from typing import Any

from workbench.core.tools import ToolContext
from workbench_plugins.topopt import engine
from workbench_plugins.topopt.tools.arguments import ClarifyArgs, CreateArgs, ProblemArgs
from workbench_plugins.topopt.tools.failures import engine_errors
from workbench_plugins.topopt.tools.results import ClarifyResult, ProblemInfo


def _problem_info(problem_type: str, message: str, **extra: Any) -> ProblemInfo:
    with engine_errors():
        info = engine.describe(problem_type)
    return ProblemInfo(message=message, **info, **extra)


def create_problem(args: CreateArgs, context: ToolContext) -> ProblemInfo:
    return _problem_info(
        args.problem_type, f"Created {args.problem_type} (seed {args.seed}).", seed=args.seed
    )


def get_problem_details(args: ProblemArgs, context: ToolContext) -> ProblemInfo:
    return _problem_info(args.problem_type, f"Details of {args.problem_type}.")


def ask_human_for_clarification(args: ClarifyArgs, context: ToolContext) -> ClarifyResult:
    return ClarifyResult(
        question=args.clarification_request,
        message=(
            "The question was passed to the engineer. Wait for the answer; do not run design "
            "tools until it arrives."
        ),
    )
