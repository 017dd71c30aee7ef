"""The aggregation reproduces hand-computed examples (../shared/specs/engjudge.md): penalties, each
fatal cap and the lowest-cap rule, propagation on dag, chain and flat, absent stages and the
missing-stage penalty, the coverage, verbosity and sanity multipliers, S_final.

Every expected number below is worked out by hand in the comments, never by the code under test.
"""

from __future__ import annotations

import pytest

from workbench_plugins.judging.scoring.aggregate import (
    MetaJudgement,
    StageJudgement,
    StageVerdict,
    final_score,
    meta_fraction,
    propagate,
    raw_score,
)
from workbench_plugins.judging.scoring.graphs import GraphError, edges, resolve_graph
from workbench_plugins.judging.scoring.stages import STAGES

EXACT = 1e-12
PERFECT = MetaJudgement(coverage=10, verbosity=10, sanity_fail=False)
# raw scores used for the propagation examples
RAW = {"PC": 10.0, "AS": 8.0, "VI": 6.0, "ES": 3.0, "LR": 9.0, "AA": 10.0, "PI": 7.0, "FA": 4.0}


def judged(*severities: str, fatal: tuple[str, ...] = ()) -> StageVerdict:
    errors = [{"description": f"error {i}", "severity": s} for i, s in enumerate(severities)]
    return StageVerdict.model_validate({"errors": errors, "fatal": list(fatal)})


@pytest.mark.parametrize(
    ("severities", "expected"),
    [
        ((), 10.0),  # nothing found
        (("minor",), 8.0),  # 10 - 2
        (("moderate",), 6.0),  # 10 - 4
        (("major",), 3.0),  # 10 - 7
        (("critical",), 0.0),  # 10 - 10
        (("minor", "moderate"), 4.0),  # 10 - 2 - 4
        (("minor", "minor", "minor"), 4.0),  # 10 - 6
        (("major", "moderate"), 0.0),  # max(0, 10 - 11)
        (("critical", "critical"), 0.0),  # max(0, 10 - 20)
    ],
)
def test_penalties_are_2_4_7_10_and_never_below_zero(
    severities: tuple[str, ...], expected: float
) -> None:
    assert raw_score(judged(*severities)) == expected


@pytest.mark.parametrize(
    ("flag", "cap"),
    [
        ("governing_equation_incorrect", 3.0),
        ("physical_model_invalid", 4.0),
        ("dimensionally_inconsistent", 2.0),
        ("boundary_conditions_invalid", 4.0),
        ("physically_impossible_result", 2.0),
    ],
)
def test_each_fatal_flag_caps_a_clean_stage(flag: str, cap: float) -> None:
    assert raw_score(judged(fatal=(flag,))) == cap  # min(10, cap)
    assert raw_score(judged("minor", fatal=(flag,))) == cap  # min(8, cap)


def test_the_lowest_cap_wins_and_penalties_below_a_cap_stay() -> None:
    # caps 3 (governing) and 2 (dimensions): min(10, 3, 2) = 2
    assert (
        raw_score(judged(fatal=("governing_equation_incorrect", "dimensionally_inconsistent"))) == 2
    )
    # caps 4, 4 and 3: min(10, 4, 4, 3) = 3
    flags = (
        "physical_model_invalid",
        "boundary_conditions_invalid",
        "governing_equation_incorrect",
    )
    assert raw_score(judged(fatal=flags)) == 3
    # a major error leaves 3, below the cap 4: min(3, 4) = 3
    assert raw_score(judged("major", fatal=("physical_model_invalid",))) == 3
    # moderate + minor leave 4, the cap 3 is lower: min(4, 3) = 3
    assert raw_score(judged("moderate", "minor", fatal=("governing_equation_incorrect",))) == 3


def test_judge_spellings_of_severities_and_flags_are_read() -> None:
    verdict = StageVerdict.model_validate(
        {
            "errors": [{"description": "Bernoulli in a viscous pipe", "severity": "MAJOR"}],
            "fatal": ["Governing equation incorrect"],
        }
    )
    assert verdict.errors[0].severity == "major"
    assert verdict.fatal == ["governing_equation_incorrect"]
    assert raw_score(verdict) == 3.0  # min(10 - 7, 3)


def test_propagation_on_the_default_dag() -> None:
    # S = Y * mean(S_parent / 10) over the parents
    # PC: no parents                    10
    # AS <- PC:      8 * (10/10)      = 8
    # VI <- PC:      6 * (10/10)      = 6
    # ES <- AS, VI:  3 * (8 + 6)/20   = 3 * 0.7     = 2.1
    # LR <- AS, ES:  9 * (8 + 2.1)/20 = 9 * 0.505   = 4.545
    # AA <- ES, LR: 10 * (2.1 + 4.545)/20 = 10 * 0.33225 = 3.3225
    # PI <- AS, LR:  7 * (8 + 4.545)/20   = 7 * 0.62725  = 4.39075
    # FA <- AA, PI:  4 * (3.3225 + 4.39075)/20 = 4 * 0.3856625 = 1.54265
    expected = {
        "PC": 10.0,
        "AS": 8.0,
        "VI": 6.0,
        "ES": 2.1,
        "LR": 4.545,
        "AA": 3.3225,
        "PI": 4.39075,
        "FA": 1.54265,
    }
    assert propagate(RAW, "dag") == pytest.approx(expected, abs=EXACT)


def test_propagation_on_the_chain() -> None:
    # every stage has the one before as its only parent: S_t = Y_t * S_(t-1) / 10
    # PC 10; AS 8 * 1 = 8; VI 6 * 0.8 = 4.8; ES 3 * 0.48 = 1.44; LR 9 * 0.144 = 1.296;
    # AA 10 * 0.1296 = 1.296; PI 7 * 0.1296 = 0.9072; FA 4 * 0.09072 = 0.36288
    expected = {
        "PC": 10.0,
        "AS": 8.0,
        "VI": 4.8,
        "ES": 1.44,
        "LR": 1.296,
        "AA": 1.296,
        "PI": 0.9072,
        "FA": 0.36288,
    }
    assert propagate(RAW, "chain") == pytest.approx(expected, abs=EXACT)


def test_flat_propagates_nothing() -> None:
    assert propagate(RAW, "flat") == RAW


def test_an_absent_stage_scores_zero_and_passes_zero_to_its_children() -> None:
    raw = {stage: 10.0 for stage in STAGES} | {"AS": 5.0, "VI": 0.0}
    # VI absent: S_VI = 0, and it counts as ES's parent with 0
    # PC 10; AS 5 * 1 = 5; VI 0; ES 10 * (5 + 0)/20 = 2.5; LR 10 * (5 + 2.5)/20 = 3.75;
    # AA 10 * (2.5 + 3.75)/20 = 3.125; PI 10 * (5 + 3.75)/20 = 4.375;
    # FA 10 * (3.125 + 4.375)/20 = 3.75
    propagated = propagate(raw, "dag", absent=["VI"])
    assert propagated == pytest.approx(
        {"PC": 10, "AS": 5, "VI": 0, "ES": 2.5, "LR": 3.75, "AA": 3.125, "PI": 4.375, "FA": 3.75},
        abs=EXACT,
    )
    # S_base = 32.5 / 8 = 4.0625; MP = 2.0 * 1 = 2; S_blend = 2.0625 = S_final
    breakdown = final_score(raw, propagated, PERFECT, absent=["VI"])
    assert breakdown.s_base == pytest.approx(4.0625, abs=EXACT)
    assert breakdown.missing == ["VI"] and breakdown.missing_penalty == 2.0
    assert breakdown.s_blend == pytest.approx(2.0625, abs=EXACT)
    assert breakdown.s_final == pytest.approx(2.0625, abs=EXACT)
    assert any(
        line.startswith("VI Visual Interpretation is missing") for line in breakdown.lowered_by
    )


def test_children_of_an_absent_root_get_nothing_from_it() -> None:
    raw = {stage: 10.0 for stage in STAGES} | {"PC": 0.0, "AS": 6.0}
    # PC absent: every other stage descends from PC on the dag, so all are 6 * 0 = 0, 10 * 0 = 0
    propagated = propagate(raw, "dag", absent=["PC"])
    assert propagated == {stage: 0.0 for stage in STAGES}


def test_the_issue_examples_leaving_a_stage_out_costs_more_than_writing_it_badly() -> None:
    clean = {stage: 10.0 for stage in STAGES}

    def s_blend(raw: dict[str, float], graph: str, absent: list[str]) -> float:
        return final_score(raw, propagate(raw, graph, absent), PERFECT, absent).s_blend

    # dag, ES written with raw 0: ES 0; LR 10 (10 + 0)/20 = 5; AA 10 (0 + 5)/20 = 2.5;
    # PI 10 (10 + 5)/20 = 7.5; FA 10 (2.5 + 7.5)/20 = 5: S_base = 50 / 8 = 6.25.
    # ES left out: the same propagation, minus 2: 4.25 (it was 6.75 when absent parents
    # were skipped)
    written = s_blend(clean | {"ES": 0.0}, "dag", [])
    left_out = s_blend(clean | {"ES": 0.0}, "dag", ["ES"])
    assert (written, left_out) == pytest.approx((6.25, 4.25), abs=EXACT)
    # chain, VI written with raw 3: ES..FA = 10 * 3/10 = 3: (10 + 10 + 6 * 3) / 8 = 4.75.
    # VI left out: VI..FA 0: 20 / 8 = 2.5, minus 2 = 0.5 (it was 6.75)
    written = s_blend(clean | {"VI": 3.0}, "chain", [])
    left_out = s_blend(clean | {"VI": 0.0}, "chain", ["VI"])
    assert (written, left_out) == pytest.approx((4.75, 0.5), abs=EXACT)


def test_the_blend_never_goes_below_zero() -> None:
    # only FA present (10), seven stages absent: FA = 10 * (0 + 0)/20 = 0; S_base = 0;
    # MP = 14; S_blend = max(0, -14) = 0
    absent = [stage for stage in STAGES if stage != "FA"]
    raw = {stage: 0.0 for stage in absent} | {"FA": 10.0}
    propagated = propagate(raw, "dag", absent=absent)
    assert propagated["FA"] == 0.0  # both parents absent: nothing to build the answer on
    breakdown = final_score(raw, propagated, PERFECT, absent=absent)
    assert breakdown.s_base == 0.0
    assert breakdown.missing_penalty == 14.0
    assert breakdown.s_blend == 0.0 and breakdown.s_final == 0.0


@pytest.mark.parametrize(
    ("rating", "fraction"),
    [(10, 0.0), (9, 0.1), (8, 0.2), (6, 0.4), (5, 0.5), (3, 0.5), (0, 0.5), (7.5, 0.25)],
)
def test_coverage_and_verbosity_take_ten_percent_a_point_at_most_half(
    rating: float, fraction: float
) -> None:
    # min(0.5, (10 - rating) * 0.10)
    assert meta_fraction(rating) == pytest.approx(fraction, abs=EXACT)


def test_the_three_multipliers_on_a_flat_graph() -> None:
    raw = {stage: 10.0 for stage in STAGES} | {"FA": 6.0}
    propagated = propagate(raw, "flat")
    # S_base = (7 * 10 + 6) / 8 = 76 / 8 = 9.5; no stage missing: S_blend = 9.5
    # coverage 8 -> 0.2, verbosity 7 -> 0.3, sanity failed -> 0.9
    # S_final = 9.5 * 0.8 * 0.7 * 0.9 = 7.6 * 0.7 * 0.9 = 5.32 * 0.9 = 4.788
    meta = MetaJudgement(coverage=8, verbosity=7, sanity_fail=True)
    breakdown = final_score(raw, propagated, meta)
    assert breakdown.s_base == 9.5 and breakdown.s_blend == 9.5
    assert breakdown.coverage == pytest.approx(0.2, abs=EXACT)
    assert breakdown.verbosity == pytest.approx(0.3, abs=EXACT)
    assert breakdown.s_final == pytest.approx(4.788, abs=EXACT)
    # the points the checks took add up to S_blend - S_final = 9.5 - 4.788 = 4.712:
    # coverage 9.5 * 0.2 = 1.90, verbosity 7.6 * 0.3 = 2.28, sanity 5.32 * 0.1 = 0.532 (0.53)
    assert breakdown.lowered_by[-3:] == [
        "Coverage 8/10: -20 % (-1.90 points).",
        "Verbosity 7/10: -30 % (-2.28 points).",
        "Physical sanity check failed: -10 % (-0.53 points).",
    ]
    # coverage 2 is capped at 50 %: 9.5 * 0.5 = 4.75
    capped = final_score(
        raw, propagated, MetaJudgement(coverage=2, verbosity=10, sanity_fail=False)
    )
    assert capped.s_final == pytest.approx(4.75, abs=EXACT)


def test_s_final_on_the_dag_example() -> None:
    propagated = propagate(RAW, "dag")
    # S_base = (10 + 8 + 6 + 2.1 + 4.545 + 3.3225 + 4.39075 + 1.54265) / 8 = 39.9009 / 8
    #        = 4.9876125; no stage missing; coverage 9 -> 0.1; verbosity 10; sanity passed
    # S_final = 4.9876125 * 0.9 = 4.48885125
    meta = MetaJudgement(coverage=9, verbosity=10, sanity_fail=False)
    judgements = {"ES": judged("major", fatal=("governing_equation_incorrect",))}
    breakdown = final_score(RAW, propagated, meta, judgements=judgements)
    assert breakdown.s_base == pytest.approx(4.9876125, abs=EXACT)
    assert breakdown.s_final == pytest.approx(4.48885125, abs=EXACT)
    es_line = next(line for line in breakdown.lowered_by if line.startswith("ES "))
    # ES lost 10 - 3 = 7 points of its own: 7 / 8 = 0.875 -> 0.88 on the base score
    assert "capped at 3: governing equation incorrect" in es_line and "-0.88" in es_line
    # LR fell from 9 to 4.545: (9 - 4.545) / 8 = 0.556875 -> 0.56
    assert "LR Logical Reasoning fell from 9 to 4.54 through the stages it depends on: -0.56" in (
        "\n".join(breakdown.lowered_by)
    )
    # coverage: 4.9876125 * 0.1 = 0.49876 -> 0.50
    assert breakdown.lowered_by[-1] == "Coverage 9/10: -10 % (-0.50 points)."


def test_a_stage_without_verdict_stops_propagation_and_the_final_score() -> None:
    raw = {stage: score for stage, score in RAW.items() if stage != "ES"}  # ES's call failed
    propagated = propagate(raw, "dag")
    assert set(propagated) == {"PC", "AS", "VI"}  # everything below ES depends on it
    with pytest.raises(ValueError, match="ES, LR, AA, PI, FA have no score"):
        final_score(raw, propagated, PERFECT)


def test_stage_judgements_score_like_their_verdicts() -> None:
    judgement = StageJudgement(stage="AA", **judged("minor", "minor").model_dump())
    assert raw_score(judgement) == 6.0  # 10 - 2 - 2


def test_graphs_are_tables_that_are_checked() -> None:
    assert ("VI", "ES") in edges("dag") and ("AA", "FA") in edges("dag")
    assert ("AA", "PI") not in edges("dag") and ("AA", "PI") in edges("chain")
    assert len(edges("chain")) == 7 and ("PI", "FA") in edges("chain")
    assert edges("flat") == []
    custom = resolve_graph({"FA": ["PC"]})
    assert custom["FA"] == ("PC",) and custom["ES"] == ()
    # a custom table propagates like a named one: FA = 4 * 10/10 = 4, the rest flat
    assert propagate(RAW, {"FA": ("PC",)}) == RAW
    with pytest.raises(GraphError, match="Unknown graph 'tree'"):
        resolve_graph("tree")
    with pytest.raises(GraphError, match="cycle"):
        resolve_graph({"PC": ("FA",), "FA": ("PC",)})
    with pytest.raises(GraphError, match="unknown stages"):
        resolve_graph({"XX": ("PC",)})
