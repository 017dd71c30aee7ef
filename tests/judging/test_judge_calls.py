"""Judge calls through scripted judge models: a malformed reply is retried once; a second one is a
JudgeFailure (recorded, never a score); tokens, seconds and retries are recorded per call; the
diagram goes to a judge that takes images; progress and cancellation between calls. A rule judge
(the bench's rubric) is asked the same questions as data, without prompts."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from workbench.agents import ScriptedChatModel
from workbench_plugins.judging.problems.registry import problem
from workbench_plugins.judging.scoring.baselines import grade_single_pass
from workbench_plugins.judging.scoring.judge import GradingCancelled, JudgeSession, Question
from workbench_plugins.judging.scoring.pipeline import CallRecord, grade
from workbench_plugins.judging.scoring.stages import STAGES

from .judge_script import (
    BAD_SEVERITY,
    BROKEN_JSON,
    NOT_A_TOOL_CALL,
    judge_script,
    round_problem,
    tagged,
    verdict,
)

SOLUTION = tagged({stage: f"the {stage} part" for stage in STAGES[:-1]} | {"FA": "100 mm"})


def human_text(message: object) -> str:
    assert isinstance(message, HumanMessage)
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part["text"] for part in content if isinstance(part, dict) and "text" in part)


def test_scripted_malformed_reply_is_retried_once_then_succeeds() -> None:
    model = ScriptedChatModel(replies=[NOT_A_TOOL_CALL, verdict([("rounding", "minor")])])
    session = JudgeSession(model, round_problem())
    result = session.judge_stage("AA", "3 + 4 = 7.01")
    assert result is not None and result.errors[0].severity == "minor"
    assert model.position == 2  # exactly one retry
    [record] = session.calls
    assert record.ok and record.retried and record.attempts == 2
    assert session.failures == []
    # the retry repeats the question and says what was wrong
    retry_messages = model.seen[1]["messages"]
    assert "could not be read" in human_text(retry_messages[-1])
    assert "no tool call" in human_text(retry_messages[-1])
    assert model.seen[1]["tools"] == ["StageVerdict"]


def test_scripted_twice_malformed_is_a_judge_failure_and_never_a_score() -> None:
    script = judge_script(overrides={"ES": [BROKEN_JSON, BAD_SEVERITY]})
    model = ScriptedChatModel(replies=script)
    result = grade(round_problem(), SOLUTION, model)
    assert model.remaining == 0  # 7 clean stages + 2 tries for ES + 3 meta checks
    [failure] = result.failures
    assert failure.kind == "stage" and failure.stage == "ES"
    assert "schema" in failure.reason  # the last try's reason: severity "huge"
    es_call = next(call for call in result.judge_calls if call.stage == "ES")
    assert es_call.ok is False and es_call.retried and es_call.attempts == 2
    # no score for ES, nor for anything that depends on it, and no final score at all
    assert "ES" not in result.raw and "ES" not in result.judgements
    assert set(result.propagated) == {"PC", "AS", "VI"}
    assert result.final is None and result.breakdown is None and not result.complete
    # the other stages went on normally: LR got LR's clean verdict
    assert result.raw["LR"] == 10.0 and result.judgements["LR"].comment == "LR is right"


def test_scripted_broken_json_then_valid_reply_counts_as_retried() -> None:
    model = ScriptedChatModel(replies=[BROKEN_JSON, verdict()])
    session = JudgeSession(model, round_problem())
    assert session.judge_stage("PC", "a beam problem") is not None
    assert session.calls[0].retried
    assert "not valid JSON" in human_text(model.seen[1]["messages"][-1])


def test_scripted_failing_meta_check_leaves_no_final_score() -> None:
    script = judge_script()
    script[-2:-1] = [NOT_A_TOOL_CALL, NOT_A_TOOL_CALL]  # verbosity answered badly twice
    result = grade(round_problem(), SOLUTION, ScriptedChatModel(replies=script))
    assert [(f.kind, f.stage) for f in result.failures] == [("meta", "verbosity")]
    assert result.meta is None and result.final is None
    assert len(result.raw) == 8  # the stages themselves were scored
    assert [call.stage for call in result.judge_calls][-3:] == ["coverage", "verbosity", "sanity"]


def test_scripted_tokens_seconds_and_retries_are_recorded_per_call() -> None:
    usage_one = {"input_tokens": 900, "output_tokens": 40}
    usage_two = {"input_tokens": 950, "output_tokens": 45}
    bad = {**NOT_A_TOOL_CALL, "usage": {"input_tokens": 800, "output_tokens": 12}}
    script = judge_script(
        overrides={"PC": [verdict(usage=usage_one)], "AS": [bad, verdict(usage=usage_two)]}
    )
    result = grade(round_problem(), SOLUTION, ScriptedChatModel(replies=script))
    pc, as_ = result.judge_calls[0], result.judge_calls[1]
    assert (pc.stage, pc.tokens_in, pc.tokens_out, pc.retried) == ("PC", 900, 40, False)
    # both tries of AS count: 800 + 950 in, 12 + 45 out
    assert (as_.stage, as_.tokens_in, as_.tokens_out, as_.retried) == ("AS", 1750, 57, True)
    assert all(call.seconds >= 0 for call in result.judge_calls)
    assert len(result.judge_calls) == 11  # 8 stages + 3 meta checks
    assert result.tokens_in == sum(call.tokens_in for call in result.judge_calls) > 1750
    assert result.complete


def test_scripted_judge_that_stops_answering_is_not_asked_again() -> None:
    model = ScriptedChatModel(replies=[])  # the script is exhausted: the backend has nothing
    session = JudgeSession(model, round_problem())
    assert session.judge_stage("FA", "100 mm") is None
    assert session.judge_stage("AA", "x = 1") is None
    first, second = session.failures
    assert "ScriptExhausted" in first.reason and second.reason == first.reason
    assert [call.attempts for call in session.calls] == [1, 0]  # no retry against it


def test_an_unreachable_judge_server_costs_one_attempt_per_grading() -> None:
    """A judge whose server refuses (the real Ollama client, nothing listening): one attempt,
    then every other call is a recorded failure without asking (a hanging server would cost
    the client's timeout on each of 22 attempts otherwise)."""
    from workbench.agents.backends import make_chat_model
    from workbench.core.settings import Settings

    settings = Settings()
    settings.ollama.base_url = "http://127.0.0.1:9"
    judge = make_chat_model("ollama:qwen3:4b", settings)
    result = grade(round_problem(), SOLUTION, judge)
    assert result.final is None and len(result.failures) == 11
    assert sum(call.attempts for call in result.judge_calls) == 1
    assert "ConnectError" in result.failures[0].reason or "Connect" in result.failures[0].reason


def test_scripted_judge_sees_problem_truth_and_stage_text() -> None:
    model = ScriptedChatModel(replies=judge_script())
    grade(round_problem(), SOLUTION, model)
    first = human_text(model.seen[0]["messages"][1])
    assert first.splitlines()[0] == "STAGE: PC (Problem Characterization)"
    assert "GROUND TRUTH ANSWER: 100 mm" in first
    assert first.endswith("SOLUTION:\nthe PC part")
    meta = human_text(model.seen[8]["messages"][1])
    assert meta.splitlines()[0] == "CHECK: coverage" and "<FA>" in meta  # the whole solution
    assert "PROBLEM CHARACTERIZATION" in str(model.seen[0]["messages"][0].content)


def test_scripted_judge_with_images_gets_the_diagram_as_an_image_block() -> None:
    beam = problem("beam_point_load-s1")
    model = ScriptedChatModel(replies=judge_script())
    grade(beam, SOLUTION, model, images=True)
    content = model.seen[0]["messages"][1].content
    assert isinstance(content, list)
    [image] = [part for part in content if isinstance(part, dict) and part["type"] == "image_url"]
    url = image["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    png = base64.b64decode(url.split(",", 1)[1])
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == beam.diagram_png()
    # without images the message is plain text
    plain = ScriptedChatModel(replies=judge_script())
    grade(beam, SOLUTION, plain)
    assert isinstance(plain.seen[0]["messages"][1].content, str)


def test_scripted_judge_from_a_model_spec_string(tmp_path: Path) -> None:
    script = tmp_path / "judge.json"
    script.write_text(json.dumps(judge_script()))
    result = grade(round_problem(), SOLUTION, f"scripted:{script}")
    assert result.complete and result.final == pytest.approx(10.0)


def test_scripted_progress_per_call_and_cancel_between_calls() -> None:
    heard: list[CallRecord] = []
    model = ScriptedChatModel(replies=judge_script())
    grade(round_problem(), SOLUTION, model, on_call=heard.append)
    assert [record.stage for record in heard] == [*STAGES, "coverage", "verbosity", "sanity"]

    stopped = ScriptedChatModel(replies=judge_script())
    with pytest.raises(GradingCancelled):
        grade(round_problem(), SOLUTION, stopped, cancelled=lambda: stopped.position >= 3)
    assert stopped.position == 3  # no call after the cancel


class RecordingRules:
    """A rule judge that keeps the questions it is asked and finds nothing wrong."""

    def __init__(self) -> None:
        self.questions: list[Question] = []

    def answer(self, question: Question) -> dict[str, Any]:
        self.questions.append(question)
        if question.kind == "stage":
            return {"errors": [], "fatal": [], "comment": "rules"}
        if question.kind == "single_pass":
            return {"stages": [{"stage": stage, "score": 9.0} for stage in STAGES]}
        return {"sanity_fail": False} if question.stage == "sanity" else {"score": 10.0}


def test_a_rule_judge_is_asked_the_questions_as_data_without_prompts() -> None:
    rules = RecordingRules()
    result = grade(round_problem(), SOLUTION, rules)
    asked = [(question.kind, question.stage) for question in rules.questions]
    assert asked == [("stage", stage) for stage in STAGES] + [
        ("meta", "coverage"),
        ("meta", "verbosity"),
        ("meta", "sanity"),
    ]
    # a stage's own text; the checks of the whole solution get it parsed, once, by the pipeline
    assert rules.questions[STAGES.index("ES")].text == "the ES part"
    sanity = rules.questions[-1]
    assert sanity.text == SOLUTION and sanity.parsed is result.parsed
    assert result.complete and result.final == pytest.approx(10.0)
    assert all((c.tokens_in, c.tokens_out, c.attempts) == (0, 0, 1) for c in result.judge_calls)

    single = grade_single_pass(round_problem(), SOLUTION, rules)
    [question] = rules.questions[11:]
    assert (question.kind, question.stage, question.parsed) == ("single_pass", "all", single.parsed)
    assert single.single_pass == pytest.approx(9.0)


def test_a_rule_that_breaks_is_a_judge_failure_after_one_attempt() -> None:
    class NoRules:
        def answer(self, question: Question) -> dict[str, Any]:
            raise ValueError(f"no rule for {question.stage}")

    session = JudgeSession(NoRules(), round_problem())
    assert session.judge_stage("ES", "F = m a") is None
    [failure] = session.failures
    assert failure.stage == "ES" and "no rule for ES" in failure.reason
    assert [(call.ok, call.attempts) for call in session.calls] == [(False, 1)]


NO_ERRORS_FIELD = {"tool_calls": [{"name": "StageVerdict", "args": {"fatal": [], "comment": "ok"}}]}


def test_a_verdict_without_its_errors_field_is_a_failed_call_never_a_clean_stage() -> None:
    # the judge said nothing about ES's errors, twice: ES is not scored 10, there is no score
    script = judge_script(overrides={"ES": [NO_ERRORS_FIELD, NO_ERRORS_FIELD]})
    model = ScriptedChatModel(replies=script)
    result = grade(round_problem(), SOLUTION, model)
    assert model.remaining == 0
    [failure] = result.failures
    assert (failure.kind, failure.stage) == ("stage", "ES")
    assert "errors" in failure.reason
    assert "ES" not in result.raw and "ES" not in result.judgements
    assert result.final is None and not result.complete


def test_a_verdict_without_its_errors_field_is_asked_again() -> None:
    model = ScriptedChatModel(replies=[NO_ERRORS_FIELD, verdict([("unit slip", "moderate")])])
    session = JudgeSession(model, round_problem())
    result = session.judge_stage("ES", "F = m a")
    assert result is not None and [e.severity for e in result.errors] == ["moderate"]
    [record] = session.calls
    assert record.ok and record.retried
