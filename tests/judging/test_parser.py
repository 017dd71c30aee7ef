"""The rule-based parser of tagged solutions: missing, repeated, empty, nested and out-of-order
stages, text outside the tags, long tag names, unclosed and stray tags."""

from __future__ import annotations

from workbench_plugins.judging.scoring.parser import parse_solution
from workbench_plugins.judging.scoring.stages import SOLUTION_FORMAT, STAGES

from .judge_script import tagged

COMPLETE = {stage: f"text of {stage}" for stage in STAGES}


def test_a_complete_solution_has_every_stage_and_no_problem() -> None:
    parsed = parse_solution(tagged(COMPLETE))
    assert parsed.stages == COMPLETE
    assert parsed.missing == parsed.repeated == parsed.empty == parsed.nested == []
    assert parsed.out_of_order is False
    assert parsed.outside == ""
    assert parsed.absent == [] and parsed.present == list(STAGES)


def test_missing_stages_are_listed_in_stage_order() -> None:
    blocks = {s: t for s, t in COMPLETE.items() if s not in ("FA", "AS")}
    parsed = parse_solution(tagged(blocks))
    assert parsed.missing == ["AS", "FA"]
    assert "AS" not in parsed.stages and "FA" not in parsed.stages
    assert parsed.absent == ["AS", "FA"]


def test_a_solution_without_tags_misses_all_stages_and_keeps_the_text_outside() -> None:
    parsed = parse_solution("The deflection is 12 mm.")
    assert parsed.missing == list(STAGES)
    assert parsed.outside == "The deflection is 12 mm."


def test_repeated_stages_are_joined_in_order_and_reported() -> None:
    text = tagged(COMPLETE) + "\n<AA>second try: 3 + 4 = 7</AA>"
    parsed = parse_solution(text)
    assert parsed.repeated == ["AA"]
    assert parsed.stages["AA"] == "text of AA\n\nsecond try: 3 + 4 = 7"
    assert parsed.missing == []


def test_an_empty_stage_is_empty_not_missing_but_counts_as_absent() -> None:
    parsed = parse_solution(tagged({**COMPLETE, "PI": "   \n  "}))
    assert parsed.empty == ["PI"]
    assert parsed.missing == []
    assert parsed.stages["PI"] == ""
    assert parsed.absent == ["PI"]
    assert "PI" not in parsed.present


def test_a_nested_stage_is_its_own_stage_and_cut_out_of_the_outer_one() -> None:
    text = (
        "<PC>beam</PC><AS>linear elastic</AS>"
        "<ES>EI y'' = M(x) <VI>span 4 m, pin and roller</VI> with y(0) = y(L) = 0</ES>"
    )
    parsed = parse_solution(text)
    assert parsed.nested == ["VI"]
    assert parsed.stages["VI"] == "span 4 m, pin and roller"
    assert "span 4 m" not in parsed.stages["ES"]
    assert parsed.stages["ES"].startswith("EI y'' = M(x)")
    assert parsed.stages["ES"].endswith("with y(0) = y(L) = 0")


def test_out_of_order_stages_are_flagged_but_still_read() -> None:
    order = ["PC", "AS", "VI", "LR", "ES", "AA", "PI", "FA"]  # LR before ES
    parsed = parse_solution(tagged({stage: COMPLETE[stage] for stage in order}))
    assert parsed.out_of_order is True
    assert parsed.stages == COMPLETE
    assert parse_solution("<FA>1 m</FA><PC>x</PC>").out_of_order is True


def test_text_outside_the_tags_is_kept_apart_and_never_in_a_stage() -> None:
    text = "Sure! Here is my solution.\n" + tagged(COMPLETE) + "\nHope this helps."
    parsed = parse_solution(text)
    assert parsed.outside == "Sure! Here is my solution.\nHope this helps."
    assert all("Sure" not in body and "Hope" not in body for body in parsed.stages.values())


def test_long_names_and_any_case_are_accepted_and_unknown_tags_are_text() -> None:
    text = (
        "<problem_characterization>beam</problem_characterization>"
        "<Equation Selection>EI y'' = M</Equation Selection>"
        "<fa>12 <b>mm</b></fa>"
    )
    parsed = parse_solution(text)
    assert parsed.stages == {"PC": "beam", "ES": "EI y'' = M", "FA": "12 <b>mm</b>"}


def test_an_unclosed_stage_ends_at_the_next_tag_and_a_stray_closer_is_dropped() -> None:
    parsed = parse_solution("<PC>beam problem\n<AS>small deflections</AS></LR> done")
    assert parsed.stages == {"PC": "beam problem", "AS": "small deflections"}
    assert parsed.nested == []
    assert parsed.outside == "done"


def test_the_solution_format_names_every_tag_in_order() -> None:
    positions = [SOLUTION_FORMAT.index(f"<{stage}>") for stage in STAGES]
    assert positions == sorted(positions)
    assert all(f"</{stage}>" in SOLUTION_FORMAT for stage in STAGES)
    # the format itself parses as a complete, ordered solution
    assert parse_solution(SOLUTION_FORMAT).missing == []
