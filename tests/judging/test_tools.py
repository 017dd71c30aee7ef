"""The judging tools through the registry: get_problem never gives the answer (and keeps the
diagram as a PNG artifact), grade_solution returns the breakdown with a scripted judge and
shows each judge call as a job's progress."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.judging.scripts import engjudge_replies, write_script
from workbench.core.events import JobFinished, JobProgress, JobStarted
from workbench_plugins.judging.bench.policies import reference_solution
from workbench_plugins.judging.problems.registry import problem, problem_set

PROBLEM = "thermal_wall-s2"


def scripted_profile(context: Any, spec: str) -> str:
    """A model profile replaying the script `spec` names (the person's setting), and its name."""
    path = spec.removeprefix("scripted:")
    context.settings.model_profiles = [{"name": "judge", "kind": "scripted", "model": path}]
    return "judge"


def answer_texts(value: float) -> set[str]:
    """The ways an answer could be written: several precisions, as the tools would print it."""
    return {f"{value:.6g}", f"{value:.5g}", f"{value:.4g}", repr(value)}


def test_get_problem_never_gives_the_answer_and_keeps_the_diagram(context: Any) -> None:
    for item in problem_set((1, 2)):
        outcome = context.registry.call("get_problem", {"problem_id": item.id}, caller="test")
        assert outcome.ok, outcome.error
        result = outcome.result
        assert "answer_value" not in result and "answer" not in result
        text = json.dumps(result, ensure_ascii=False)
        given = json.dumps(item.given, ensure_ascii=False) + item.statement
        leaked = [t for t in answer_texts(item.answer_value) if t in text and t not in given]
        assert not leaked, f"{item.id} shows its answer {leaked}"
        assert result["statement"] == item.statement and result["given"] == item.given
        diagram = Path(result["diagram"])
        assert diagram.read_bytes()[:4] == b"\x89PNG"
    names = [artifact.name for artifact in context.store.artifacts()]
    assert f"{PROBLEM}.png" in names


def test_get_problem_names_the_fix_for_an_unknown_id(context: Any) -> None:
    outcome = context.registry.call("get_problem", {"problem_id": "no_such-s1"}, caller="test")
    assert not outcome.ok
    assert "list_problems" in outcome.error.explain()


def test_list_problems_by_subject(context: Any) -> None:
    outcome = context.registry.call("list_problems", {"subject": "thermodynamics"}, caller="t")
    assert outcome.ok
    listed = outcome.result["problems"]
    assert listed and {p["subject"] for p in listed} == {"thermodynamics"}
    assert all("answer" not in json.dumps(p) for p in listed)


def test_grade_solution_scripted_judge_returns_the_breakdown_with_progress(
    context: Any, tmp_path: Path
) -> None:
    item = problem(PROBLEM)
    judge = write_script(tmp_path / "judge.json", engjudge_replies(es_errors=(("major", "x"),)))
    judge = scripted_profile(context, judge)  # a caller names a model profile, never a file
    events: list[Any] = []
    for kind in (JobStarted, JobProgress, JobFinished):
        context.bus.subscribe(kind, events.append)
    arguments = {
        "problem_id": PROBLEM,
        "solution_text": reference_solution(item),
        "judge_model": judge,
    }
    outcome = context.registry.call("grade_solution", arguments, caller="test")
    assert outcome.ok, outcome.error
    result = outcome.result
    stages = {s["stage"]: s for s in result["stages"]}
    assert stages["ES"]["raw"] == 3.0 and stages["ES"]["errors"] == ["major: x"]
    assert stages["LR"]["raw"] == 10.0 and stages["LR"]["propagated"] == pytest.approx(6.5)
    # ES 3 (major: 7 off); LR 10 (1 + .3) / 2, AA 10 (.3 + .65) / 2, PI 10 (1 + .65) / 2,
    # FA 10 (.475 + .825) / 2: mean(10, 10, 10, 3, 6.5, 4.75, 8.25, 6.5) = 7.375
    assert result["final"] == pytest.approx(7.375)
    assert result["lowered_by"] and result["judge_calls"] == 11 and not result["judge_failures"]
    assert result["answer"] == f"{item.answer_value:.6g} {item.answer_unit}"
    progress = [e for e in events if isinstance(e, JobProgress)]
    assert len(progress) == 11 and progress[-1].fraction == 1.0
    assert "judge call 4: stage ES (ok)" in [e.message for e in progress]
    assert isinstance(events[0], JobStarted) and isinstance(events[-1], JobFinished)
    assert events[-1].status == "done"


@pytest.mark.parametrize("text", ["", "  \n\t "])
def test_grade_solution_refuses_a_blank_solution_before_any_judge_call(
    context: Any, text: str
) -> None:
    started: list[Any] = []
    context.bus.subscribe(JobStarted, started.append)
    arguments = {"problem_id": PROBLEM, "solution_text": text, "judge_model": "scripted:none"}
    outcome = context.registry.call("grade_solution", arguments, caller="test")
    assert not outcome.ok
    assert "the solution is blank" in outcome.error.explain()
    assert not started  # refused before the grading began


def test_grade_solution_refuses_a_solution_over_the_limit_and_says_the_limit(
    context: Any,
) -> None:
    from workbench_plugins.judging.tools.grading import MAX_SOLUTION_CHARS

    item = problem(PROBLEM)
    padding = "x" * (1_000_000 - len(reference_solution(item)))
    arguments = {
        "problem_id": PROBLEM,
        "solution_text": reference_solution(item) + padding,
        "judge_model": "scripted:none",
    }
    outcome = context.registry.call("grade_solution", arguments, caller="test")
    assert not outcome.ok
    assert f"over the limit of {MAX_SOLUTION_CHARS:,}" in outcome.error.explain()


def test_grade_solution_without_a_score_fails_with_the_judge_failure(
    context: Any, tmp_path: Path
) -> None:
    malformed = {"content": "Looks fine."}  # no tool call, twice: the PC verdict is missing
    judge = write_script(tmp_path / "judge.json", [malformed, malformed, *engjudge_replies()[1:]])
    judge = scripted_profile(context, judge)
    finished: list[Any] = []
    context.bus.subscribe(JobFinished, finished.append)
    arguments = {
        "problem_id": PROBLEM,
        "solution_text": reference_solution(problem(PROBLEM)),
        "judge_model": judge,
    }
    outcome = context.registry.call("grade_solution", arguments, caller="test")
    assert not outcome.ok
    explained = outcome.error.explain()
    assert f"{PROBLEM}: no score, 1 judge call(s) gave no usable verdict" in explained
    assert "stage PC" in explained
    assert [event.status for event in finished] == ["failed"]
