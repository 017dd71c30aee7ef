"""The pipeline's Grade as the panel's GradeReport, and the same grading over another graph.

Switching the graph after a grading needs no judge: the raw stage scores and the meta checks
stay, only propagation and the final score are computed again (scoring.aggregate). Qt-free.
"""

from __future__ import annotations

from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.scoring.aggregate import (
    FATAL_CAPS,
    FATAL_LABELS,
    MISSING_STAGE_PENALTY,
    final_score,
    propagate,
)
from workbench_plugins.judging.scoring.graphs import resolve_graph
from workbench_plugins.judging.scoring.pipeline import Grade, JudgeFailure
from workbench_plugins.judging.scoring.stages import STAGE_NAMES, STAGES
from workbench_plugins.judging.views.grade_report import (
    BELOW_A_FAILURE,
    ErrorLine,
    GradeReport,
    StageLine,
)

OUTSIDE_SHOWN = 120  # characters of text outside the tags quoted in the format notes
META_WORDS = {
    "coverage": "coverage check",
    "verbosity": "verbosity check",
    "sanity": "sanity check",
}


def parents_of(graph: str) -> dict[str, tuple[str, ...]]:
    return resolve_graph(graph)


def over_graph(grade: Grade, graph: str) -> Grade:
    """The same judgements propagated over `graph` (no judge call); unchanged when incomplete."""
    if grade.graph == graph:
        return grade
    absent = grade.parsed.absent
    propagated = propagate(grade.raw, graph, absent=absent)
    breakdown = grade.breakdown
    if grade.meta is not None and grade.final is not None:
        breakdown = final_score(grade.raw, propagated, grade.meta, absent, grade.judgements)
    final = breakdown.s_final if breakdown is not None and grade.final is not None else None
    return grade.model_copy(
        update={"graph": graph, "propagated": propagated, "breakdown": breakdown, "final": final}
    )


def report_of(grade: Grade, problem: Problem, judge: str = "the judge model") -> GradeReport:
    """What the panel shows of `grade` (of `problem`, judged by `judge`)."""
    failed = {failure.stage: failure for failure in grade.failures}
    absent = set(grade.parsed.absent)
    stages = tuple(
        _stage_line(grade, stage, failed.get(stage), stage in absent) for stage in STAGES
    )
    breakdown = grade.breakdown
    figures: dict[str, float] = {}
    if breakdown is not None:
        figures = {
            "S_base": breakdown.s_base,
            "MP": breakdown.missing_penalty,
            "S_blend": breakdown.s_blend,
            "COVERAGE": breakdown.coverage,
            "VERBOSITY": breakdown.verbosity,
            "SANITY_FAIL": float(breakdown.sanity_fail),
            "S_final": breakdown.s_final,
        }
    return GradeReport(
        problem_id=problem.id,
        graph=grade.graph,
        stages=stages,
        final=grade.final,
        lowered_by=tuple(breakdown.lowered_by)
        if breakdown is not None and grade.final is not None
        else (),
        format_notes=tuple(format_notes(grade)),
        failures=tuple(failure_texts(grade.failures, judge)),
        failed_calls=len(grade.failures),
        answer=_answer_text(grade, problem),
        calls=len(grade.judge_calls),
        tokens_in=grade.tokens_in,
        tokens_out=grade.tokens_out,
        seconds=grade.seconds,
        figures=figures,
        judge=judge,
    )


def _stage_line(grade: Grade, stage: str, failure: JudgeFailure | None, absent: bool) -> StageLine:
    judgement = grade.judgements.get(stage)
    errors: list[ErrorLine] = []
    if judgement is not None:
        errors = [ErrorLine(error.severity, error.description) for error in judgement.errors]
        errors += [
            ErrorLine("cap", f"{FATAL_LABELS[flag]}: the stage is capped at {FATAL_CAPS[flag]}")
            for flag in judgement.fatal
        ]
    note = badge = ""
    if absent:
        note = f"missing from the solution: 0 points and -{MISSING_STAGE_PENALTY:g}"
        badge = "missing"
    elif failure is not None:
        note, badge = "no score: the judge's reply could not be used", "judge failed"
    elif stage not in grade.propagated and stage in grade.raw:
        note, badge = "no score: a stage it depends on has none", BELOW_A_FAILURE
    return StageLine(
        stage=stage,
        name=STAGE_NAMES[stage],
        raw=grade.raw.get(stage),
        propagated=grade.propagated.get(stage),
        errors=tuple(errors),
        comment=judgement.comment if judgement is not None else "",
        note=note,
        badge=badge,
    )


def format_notes(grade: Grade) -> list[str]:
    """What was wrong with the solution's tagging, in words."""
    parsed = grade.parsed
    notes = [
        f"{stage} {STAGE_NAMES[stage]} is missing (-{MISSING_STAGE_PENALTY:g} points)."
        for stage in parsed.missing
    ]
    notes += [
        f"{stage} {STAGE_NAMES[stage]} is tagged but empty (-{MISSING_STAGE_PENALTY:g} points)."
        for stage in parsed.empty
    ]
    notes += [
        f"{stage} is tagged more than once; its parts were joined." for stage in parsed.repeated
    ]
    notes += [
        f"{stage} was opened inside another stage; it was cut out." for stage in parsed.nested
    ]
    if parsed.out_of_order:
        notes.append("The stages are not in the order PC AS VI ES LR AA PI FA.")
    outside = " ".join(parsed.outside.split())
    if outside:
        quoted = outside if len(outside) <= OUTSIDE_SHOWN else outside[:OUTSIDE_SHOWN] + "…"
        notes.append(f"Text outside the tags was not graded: “{quoted}”")
    return notes


def failure_texts(failures: list[JudgeFailure], judge: str = "the judge model") -> list[str]:
    """Judge failures in words, one line per reason (a server that is down fails every call the
    same way: one line, not eleven)."""
    by_reason: dict[str, list[str]] = {}
    for failure in failures:
        what = STAGE_NAMES.get(failure.stage) or META_WORDS.get(failure.stage, failure.stage)
        by_reason.setdefault(failure.reason, []).append(what)
    lines = []
    for reason, parts in by_reason.items():
        backend = reason.startswith("the call failed")
        hint = (
            " Is the judge model's server running, and is the model in Settings right?"
            if backend
            else ""
        )
        # a backend that fails is not asked again; a malformed reply was retried once
        how = "" if backend else " even after a retry"
        lines.append(
            f"The judge failed on {_listed(parts)}{how} ({reason}); the judge "
            f"was {judge}.{hint} "
            "No score is given for that: Grade again, or choose another judge model in Settings."
        )
    return lines


def _listed(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return f"{', '.join(parts[:-1])} and {parts[-1]}"


def _answer_text(grade: Grade, problem: Problem) -> str:
    truth = f"{problem.answer_value:.4g} {problem.answer_unit}"
    check = grade.final_answer
    if check is None or check.relative_error is None:
        return truth
    off = check.relative_error * 100
    return f"{truth}; the solution's answer is off by {off:.1f} % ({check.band})"
