"""Replies for scripted judge models (ScriptedChatModel) and small problems with round answers, for
the scoring tests. A scripted judge answers the pipeline's calls in order: the present stages in
STAGES order, then coverage, verbosity and sanity."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.stages import STAGES


def verdict(
    errors: Iterable[tuple[str, str]] = (),
    fatal: Iterable[str] = (),
    comment: str = "",
    usage: dict[str, int] | None = None,
) -> dict[str, Any]:
    """A StageVerdict tool call; errors as (description, severity) pairs."""
    args = {
        "errors": [{"description": d, "severity": s} for d, s in errors],
        "fatal": list(fatal),
        "comment": comment,
    }
    reply: dict[str, Any] = {"tool_calls": [{"name": "StageVerdict", "args": args}]}
    if usage:
        reply["usage"] = usage
    return reply


def coverage(score: float) -> dict[str, Any]:
    return {"tool_calls": [{"name": "CoverageVerdict", "args": {"score": score}}]}


def verbosity(score: float) -> dict[str, Any]:
    return {"tool_calls": [{"name": "VerbosityVerdict", "args": {"score": score}}]}


def sanity(fail: bool) -> dict[str, Any]:
    return {"tool_calls": [{"name": "SanityVerdict", "args": {"sanity_fail": fail}}]}


def single_pass(scores: Mapping[str, float]) -> dict[str, Any]:
    stages = [{"stage": s, "score": scores[s], "reasoning": "scripted"} for s in STAGES]
    return {"tool_calls": [{"name": "SinglePassVerdict", "args": {"stages": stages}}]}


NOT_A_TOOL_CALL = {"content": "The solution looks fine to me."}
BROKEN_JSON = {"tool_calls": [{"name": "StageVerdict", "args": '{"errors": [oops], "fatal": ]'}]}
BAD_SEVERITY = {
    "tool_calls": [
        {"name": "StageVerdict", "args": {"errors": [{"description": "x", "severity": "huge"}]}}
    ]
}


def judge_script(
    stages: Iterable[str] = STAGES,
    overrides: Mapping[str, list[dict[str, Any]]] | None = None,
    cs: float = 10,
    vs: float = 10,
    sanity_fail: bool = False,
) -> list[dict[str, Any]]:
    """Clean verdicts for `stages` (replaced by `overrides[stage]`, a list of replies so a
    retry can be scripted), then the three meta checks."""
    replies: list[dict[str, Any]] = []
    for stage in stages:
        replies += (overrides or {}).get(stage, [verdict(comment=f"{stage} is right")])
    return [*replies, coverage(cs), verbosity(vs), sanity(sanity_fail)]


def tagged(blocks: Mapping[str, str]) -> str:
    """A solution with the given stages, each in its tags, in the given order."""
    return "\n".join(f"<{stage}>\n{text}\n</{stage}>" for stage, text in blocks.items())


def round_problem(value: float = 100.0, unit: str = "mm", asked: str = "the deflection") -> Problem:
    """A stand-in problem with a round ground truth, so error bands are easy to compute by hand
    (no family: it has no diagram)."""
    return Problem(
        id="round-s1",
        subject="mechanics_of_materials",
        family="round",
        seed=1,
        title="A problem with a round answer",
        statement=f"Find {asked} in {unit}.",
        given={"L": "2 m"},
        asked=asked,
        answer_value=value,
        answer_unit=unit,
    )
