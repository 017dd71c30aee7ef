"""EngJudge end to end with scripted judges that follow the rubric, on a generated beam problem:
a correct solution scores >= 9; a wrong governing equation caps ES at 3 and propagates; the
SinglePass baselines score the same wrong solution higher; the final-answer bands are computed by
our code from the ground truth (5 % and 10 % edges, wrong units, missing units).

Beam (beam_point_load-s1): L = 5.5 m, P = 35 kN at a = 3 m, E = 210 GPa, I = 8356 cm^4;
ground truth y_max = P b (L^2 - b^2)^1.5 / (9 sqrt(3) E I L) = 6.838 mm (b = 2.5 m).
"""

from __future__ import annotations

import pytest

from workbench.agents import ScriptedChatModel
from workbench_plugins.judging.problems.model import Problem
from workbench_plugins.judging.problems.registry import problem
from workbench_plugins.judging.scoring.aggregate import StageVerdict, raw_score
from workbench_plugins.judging.scoring.final_answer import FinalAnswerCheck, check_final_answer
from workbench_plugins.judging.scoring.pipeline import grade, grade_single_pass

from .judge_script import judge_script, round_problem, single_pass, tagged, verdict

EXACT = 1e-12

CORRECT = {
    "PC": "Static deflection of a simply supported beam under an off-centre point load; find "
    "the maximum deflection.",
    "AS": "1. Linear elastic, small deflections (Euler-Bernoulli). 2. Self-weight neglected, as "
    "stated.",
    "VI": "Pin at A, roller at B, L = 5.5 m; P = 35 kN downward at a = 3 m from A, so b = 2.5 m; "
    "E = 210 GPa, I = 8356 cm^4.",
    "ES": "EI y'' = M(x) with y(0) = y(L) = 0 gives, for the shorter distance b, "
    "y_max = P b (L^2 - b^2)^1.5 / (9 sqrt(3) E I L).",
    "LR": "Take b = min(a, L - a), evaluate the closed form in SI units, convert to mm.",
    "AA": "EI = 210e9 * 8.356e-5 = 1.7548e7 N m^2; L^2 - b^2 = 24 m^2; 24^1.5 = 117.58 m^3; "
    "y_max = 35e3 * 2.5 * 117.58 / (9 * 1.7321 * 1.7548e7 * 5.5) = 6.838e-3 m.",
    "PI": "About 6.8 mm, L/800: a plausible service deflection for a steel beam of this span.",
    "FA": "6.84 mm",
}
WRONG_EQUATION = CORRECT | {
    "ES": "Cantilever tip deflection: y = P a^3 / (3 E I).",
    "LR": "Evaluate the cantilever formula with a = 3 m and convert to mm.",
    "AA": "y = 35e3 * 27 / (3 * 1.7548e7) = 1.795e-2 m.",
    "PI": "About 18 mm: a visible but plausible deflection.",
    "FA": "17.95 mm",
}
# what a judge following the rubric reports for the wrong solution: ES uses a governing equation
# that does not apply (fatal, cap 3) and lacks a justification (moderate); the algebra, the
# reasoning from that equation and the interpretation are consistent with it (no error there)
ES_WRONG = verdict(
    [("the cantilever formula does not hold for a simply supported beam", "moderate")],
    fatal=["governing_equation_incorrect"],
)


@pytest.fixture(scope="module")
def beam() -> Problem:
    return problem("beam_point_load-s1")


def test_scripted_rubric_judge_gives_a_correct_solution_at_least_9(beam: Problem) -> None:
    result = grade(beam, tagged(CORRECT), ScriptedChatModel(replies=judge_script()))
    assert result.final_answer is not None and result.final_answer.band == "correct"
    # every stage 10, nothing propagates down, nothing missing, checks all passed: 10
    assert result.raw == dict.fromkeys(CORRECT, 10.0)
    assert result.final is not None and result.final >= 9
    assert result.final == pytest.approx(10.0, abs=EXACT)
    assert result.breakdown is not None and result.breakdown.lowered_by == []


def test_scripted_wrong_governing_equation_is_capped_at_3_and_propagates(beam: Problem) -> None:
    script = judge_script(overrides={"ES": [ES_WRONG]})
    result = grade(beam, tagged(WRONG_EQUATION), ScriptedChatModel(replies=script))
    # ES: min(10 - 4, cap 3) = 3. FA: the code finds 17.95 vs 6.838 mm, 162 % off: major, 10 - 7 = 3
    assert result.raw["ES"] == 3.0
    assert result.final_answer is not None and result.final_answer.band == "major"
    assert result.raw["FA"] == 3.0 and result.judgements["FA"].source == "judge+code"
    # DAG: ES = 3 * (10 + 10)/20 = 3; LR = 10 * (10 + 3)/20 = 6.5; AA = 10 * (3 + 6.5)/20 = 4.75;
    # PI = 10 * (10 + 6.5)/20 = 8.25; FA = 3 * (4.75 + 8.25)/20 = 1.95
    expected = {
        "PC": 10,
        "AS": 10,
        "VI": 10,
        "ES": 3,
        "LR": 6.5,
        "AA": 4.75,
        "PI": 8.25,
        "FA": 1.95,
    }
    assert result.propagated == pytest.approx(expected, abs=EXACT)
    # S_base = (10 + 10 + 10 + 3 + 6.5 + 4.75 + 8.25 + 1.95) / 8 = 54.45 / 8 = 6.80625 = S_final
    assert result.final == pytest.approx(6.80625, abs=EXACT)
    assert result.breakdown is not None
    assert any(
        "capped at 3: governing equation incorrect" in line for line in result.breakdown.lowered_by
    )


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        # chain: LR = 10 * 3/10 = 3, AA = 3, PI = 3, FA = 3 * 3/10 = 0.9: (30 + 3*4 + 0.9)/8
        ("chain", 42.9 / 8),
        # flat: the raw scores: (6 * 10 + 3 + 3) / 8
        ("flat", 66 / 8),
    ],
)
def test_scripted_wrong_equation_on_the_ablation_graphs(
    beam: Problem, graph: str, expected: float
) -> None:
    script = judge_script(overrides={"ES": [ES_WRONG]})
    result = grade(beam, tagged(WRONG_EQUATION), ScriptedChatModel(replies=script), graph=graph)
    assert result.graph == graph
    assert result.final == pytest.approx(expected, abs=EXACT)


def test_scripted_single_pass_scores_the_wrong_solution_higher_than_engjudge(beam: Problem) -> None:
    # the single-pass judge applies the same penalties, without caps: ES 10 - 4 = 6, FA 10 - 7 = 3
    scores = {"PC": 10, "AS": 10, "VI": 10, "ES": 6, "LR": 10, "AA": 10, "PI": 10, "FA": 3}
    model = ScriptedChatModel(replies=[single_pass(scores)])
    baseline = grade_single_pass(beam, tagged(WRONG_EQUATION), model)
    assert len(baseline.judge_calls) == 1 and model.remaining == 0
    # SinglePass = 69 / 8 = 8.625
    assert baseline.method == "single_pass"
    assert baseline.final == baseline.single_pass == pytest.approx(8.625, abs=EXACT)
    # SinglePass + DP: ES = 6; LR = 10 * (10 + 6)/20 = 8; AA = 10 * (6 + 8)/20 = 7;
    # PI = 10 * (10 + 8)/20 = 9; FA = 3 * (7 + 9)/20 = 2.4; (30 + 6 + 8 + 7 + 9 + 2.4)/8 = 7.8
    assert baseline.single_pass_dp == pytest.approx(7.8, abs=EXACT)
    engjudge = grade(
        beam,
        tagged(WRONG_EQUATION),
        ScriptedChatModel(replies=judge_script(overrides={"ES": [ES_WRONG]})),
    )
    assert engjudge.final is not None and baseline.single_pass is not None
    assert baseline.single_pass_dp is not None
    assert engjudge.final < baseline.single_pass_dp < baseline.single_pass  # 6.81 < 7.8 < 8.63
    with_dp = grade_single_pass(
        beam, tagged(WRONG_EQUATION), ScriptedChatModel(replies=[single_pass(scores)]), dp=True
    )
    assert with_dp.method == "single_pass_dp" and with_dp.final == pytest.approx(7.8, abs=EXACT)


def test_scripted_single_pass_must_score_all_eight_stages(beam: Problem) -> None:
    seven = single_pass(dict.fromkeys(CORRECT, 9.0))
    seven["tool_calls"][0]["args"]["stages"].pop()  # FA left out
    model = ScriptedChatModel(replies=[seven, seven])
    baseline = grade_single_pass(beam, tagged(CORRECT), model)
    assert baseline.final is None and baseline.single_pass is None
    assert "exactly once" in baseline.failures[0].reason


@pytest.mark.parametrize(
    ("answer", "band", "severities", "raw"),
    [
        ("100 mm", "correct", [], 10.0),
        ("105 mm", "correct", [], 10.0),  # |105 - 100| / 100 = 5 %: the edge is still correct
        ("95 mm", "correct", [], 10.0),  # 5 % below
        ("10.5 cm", "correct", [], 10.0),  # 105 mm after conversion: 5 %
        ("0.1 m", "correct", [], 10.0),  # 100 mm
        ("105.1 mm", "moderate", ["moderate"], 6.0),  # 5.1 %: 10 - 4
        ("110 mm", "moderate", ["moderate"], 6.0),  # 10 %: the edge is still moderate
        ("90 mm", "moderate", ["moderate"], 6.0),  # 10 % below
        ("110.1 mm", "major", ["major"], 3.0),  # 10.1 %: 10 - 7
        ("-100 mm", "major", ["major"], 3.0),  # the wrong sign: 200 %
        ("100", "correct", ["moderate"], 6.0),  # no unit: read in mm, -4 for the missing unit
        ("107", "moderate", ["moderate", "moderate"], 2.0),  # no unit and 7 % off: 10 - 4 - 4
        ("100 blorbs", "correct", ["moderate"], 6.0),  # a unit pint does not know: -4
        ("100 kN", "not_comparable", ["major"], 2.0),  # wrong dimension: 10 - 7 = 3, cap 2
        ("see above", "missing", ["critical"], 0.0),  # no number: 10 - 10
    ],
)
def test_final_answer_bands_are_computed_by_our_code(
    answer: str, band: str, severities: list[str], raw: float
) -> None:
    check = check_final_answer(answer, round_problem(100.0, "mm"))
    assert check.band == band
    assert [error.severity for error in check.errors] == severities
    assert raw_score(verdict_of(check)) == raw
    if band == "not_comparable":
        assert check.fatal == ["dimensionally_inconsistent"] and check.value is None


def verdict_of(check: FinalAnswerCheck) -> StageVerdict:
    errors = [error.model_dump() for error in check.errors]
    return StageVerdict.model_validate({"errors": errors, "fatal": check.fatal})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("y_max = 1.0 x 10^2 mm", 100.0),
        ("$1.05 \\times 10^{2}\\,\\mathrm{mm}$", 105.0),
        ("**Answer:** 0.1 m (downward)", 100.0),
        ("1e2 mm in magnitude", 100.0),  # "mm in" would be an area: mm is taken
        ("first 80 mm\ncorrected: y = 101 mm", 101.0),  # the last line counts
        ("y ≈ 100 mm", 100.0),
        ("y_max = 100 mm\n(about L/800)", 100.0),  # the last line WITH a length counts
    ],
)
def test_final_answer_formats_are_read(text: str, value: float) -> None:
    check = check_final_answer(text, round_problem(100.0, "mm"))
    assert check.value == pytest.approx(value, rel=1e-9)
    assert check.errors == []


def test_final_answer_special_quantities() -> None:
    kelvin = check_final_answer("-5 K", round_problem(300.0, "K", "the temperature"))
    assert "physically_impossible_result" in kelvin.fatal
    percent = round_problem(30.0, "percent", "the efficiency")
    assert check_final_answer("30 %", percent).band == "correct"
    fraction = check_final_answer("0.3", percent)  # a bare fraction of a dimensionless answer
    assert fraction.band == "correct" and fraction.errors == []
    celsius = check_final_answer("T = 21.5 °C", round_problem(21.0, "degC", "the temperature"))
    assert celsius.relative_error == pytest.approx(0.5 / 21.0, rel=1e-9)  # compared in °C


def test_scripted_fa_band_enters_the_pipeline(beam: Problem) -> None:
    # 7.3 mm against 6.838 mm: 6.75 % off, moderate; the judge found nothing: FA = 10 - 4 = 6
    result = grade(
        beam, tagged(CORRECT | {"FA": "7.3 mm"}), ScriptedChatModel(replies=judge_script())
    )
    assert result.final_answer is not None and result.final_answer.band == "moderate"
    assert result.raw["FA"] == 6.0
    # FA = 6 * (10 + 10)/20 = 6; S_base = (7 * 10 + 6)/8 = 9.5
    assert result.final == pytest.approx(9.5, abs=EXACT)


def test_scripted_answer_only_solution_pays_for_every_missing_stage(beam: Problem) -> None:
    model = ScriptedChatModel(replies=judge_script(stages=[]))
    result = grade(beam, "The maximum deflection is 6.84 mm.", model)
    # no tags: all 8 stages missing, none is judged; only the 3 meta checks are called
    assert [call.kind for call in result.judge_calls] == ["meta", "meta", "meta"]
    assert result.parsed.missing == list(CORRECT) and result.final_answer is not None
    assert result.final_answer.band == "missing"  # the answer outside the tags is not read
    # S_base = 0; MP = 16; S_blend = max(0, -16) = 0
    assert result.final == 0.0 and model.remaining == 0
