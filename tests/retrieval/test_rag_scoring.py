"""rag-beams2d's gated scoring (EngiAI A.2) on hand-made tool calls, expectations computed by
hand: weights 0.6/0.4 (one parameter), 0.4+0.4/0.2 (two), 0.3 each/0.1 (three). Only calls that
succeeded count, and the search must come before the design it informs (issue 27)."""

from __future__ import annotations

from typing import Any

import pytest

from workbench_plugins.retrieval.bench.rag.policies import read_value, value_in
from workbench_plugins.retrieval.bench.rag.prompts import BY_ID, DEFAULTS, Lookup
from workbench_plugins.retrieval.bench.rag.scoring import (
    ToolCall,
    bound_calls,
    contributions,
    read_parameter,
    score,
)

SEARCH = ToolCall("search_documents", {"query": "volume fraction"})
ONE = {"volfrac": 0.46}
TWO = {"volfrac": 0.58, "forcedist": 0.62}
THREE = {"volfrac": 0.58, "forcedist": 0.62, "rmin": 3.7}


def optimize(flat: dict[str, Any] | None = None, ok: bool = True, **config: Any) -> ToolCall:
    args: dict[str, Any] = {"problem_type": "beams2d", **(flat or {})}
    if config:
        args["problem_config"] = config
    return ToolCall("optimize_design", args, ok)


def test_one_parameter_right_after_a_search_scores_full_marks() -> None:
    scores = score([SEARCH, optimize(volfrac=0.48)], ONE)  # 0.02 off: within 0.05
    assert scores["rag_accuracy"] == pytest.approx(0.6 * 1 + 0.4 * 1)
    assert scores["param_accuracy"] == 1.0
    assert scores["search_called"] == 1.0


def test_the_right_value_without_a_search_earns_nothing() -> None:
    scores = score([optimize(volfrac=0.46)], ONE)
    assert scores["rag_accuracy"] == 0.0
    assert scores["raw_acc_volfrac"] == 1.0  # right, but reached another way: gated out
    assert scores["acc_volfrac"] == 0.0


def test_a_wrong_value_after_a_search_earns_the_search_weight_only() -> None:
    assert score([SEARCH, optimize(volfrac=0.52)], ONE)["rag_accuracy"] == pytest.approx(0.4)
    # two parameters, both wrong: 0.2; three: 0.1
    wrong_two = optimize(volfrac=0.71, forcedist=0.85)
    assert score([SEARCH, wrong_two], TWO)["rag_accuracy"] == pytest.approx(0.2)
    wrong_three = optimize(volfrac=0.71, forcedist=0.85, rmin=5.2)
    assert score([SEARCH, wrong_three], THREE)["rag_accuracy"] == pytest.approx(0.1)


def test_the_tolerances_are_inclusive_and_per_parameter() -> None:
    at_edge = optimize(volfrac=0.63, forcedist=0.57)  # both exactly 0.05 off
    assert score([SEARCH, at_edge], TWO)["rag_accuracy"] == pytest.approx(1.0)
    rmin_in = optimize(volfrac=0.58, forcedist=0.62, rmin=4.2)  # 0.5 off: in
    rmin_out = optimize(volfrac=0.58, forcedist=0.62, rmin=4.21)
    assert score([SEARCH, rmin_in], THREE)["acc_rmin"] == 1.0
    assert score([SEARCH, rmin_out], THREE)["rag_accuracy"] == pytest.approx(0.3 + 0.3 + 0.1)


def test_aliases_flat_and_in_problem_config() -> None:
    call = optimize({"volume_fraction": 0.6, "filter_radius": 4.1}, force_dist=0.7)
    scores = score([SEARCH, call], THREE)
    # volfrac 0.02 off (1), forcedist 0.08 off (0), rmin 0.4 off (1)
    assert scores["rag_accuracy"] == pytest.approx(0.3 + 0.0 + 0.3 + 0.1)
    assert read_parameter([call], "forcedist").key == "problem_config.force_dist"
    assert read_parameter([call], "rmin").key == "filter_radius"
    for alias, value in (("vol_frac", 0.46), ("volume", 0.47)):
        assert score([SEARCH, optimize({alias: value})], ONE)["rag_accuracy"] == 1.0
    for alias in ("force_distribution", "forcedistribution"):
        assert read_parameter([optimize({alias: 0.62})], "forcedist").value == 0.62
    assert read_parameter([optimize(r_min=3.7)], "rmin").value == 3.7


def test_problem_config_wins_over_a_flat_value_in_the_same_call() -> None:
    call = optimize({"volfrac": 0.9}, volfrac=0.46)
    assert score([SEARCH, call], ONE)["rag_accuracy"] == 1.0


def test_each_parameter_comes_from_the_first_optimize_call_that_has_it() -> None:
    first = optimize(volfrac=0.30)  # wrong, and first: it is the one read
    later = optimize(volfrac=0.58, forcedist=0.62)
    scores = score([SEARCH, first, later], TWO)
    assert (scores["acc_volfrac"], scores["acc_forcedist"]) == (0.0, 1.0)
    assert scores["rag_accuracy"] == pytest.approx(0.0 + 0.4 + 0.2)
    assert bound_calls([SEARCH, first, later], TWO) == [1, 2]  # the designs the score rests on


def test_other_tools_arguments_are_not_read() -> None:
    simulate = ToolCall("simulate_design", {"problem_config": {"volfrac": 0.46}})
    scores = score([SEARCH, simulate], ONE)
    assert scores["rag_accuracy"] == 0.0  # searched, never optimised: informed no design
    assert bound_calls([SEARCH, simulate], ONE) == []


def test_values_a_model_writes_as_text() -> None:
    as_json = ToolCall("optimize_design", {"problem_config": '{"volfrac": 0.47}'})
    assert score([SEARCH, as_json], ONE)["rag_accuracy"] == 1.0
    assert score([SEARCH, optimize(volfrac="0.46")], ONE)["rag_accuracy"] == 1.0
    for bad in ("about half", None, True, float("nan")):
        assert score([SEARCH, optimize(volfrac=bad)], ONE)["rag_accuracy"] == pytest.approx(0.4)
    # a design made from a config that does not parse: searched, nothing read
    broken = ToolCall("optimize_design", {"problem_config": "{volfrac: 0.46"})
    assert score([SEARCH, broken], ONE)["rag_accuracy"] == pytest.approx(0.4)


def test_a_refused_search_and_a_failed_optimisation_earn_nothing() -> None:
    """The finding of issue 27, reproduced: this scored rag_accuracy 1.0 on main."""
    refused = ToolCall("search_documents", {"query": [[{"refused": True}]]}, ok=False)
    failed = optimize(volfrac=0.46, ok=False)
    scores = score([refused, failed], ONE)
    assert scores["rag_accuracy"] == 0.0
    assert scores["search_called"] == 0.0 and scores["raw_acc_volfrac"] == 0.0
    assert bound_calls([refused, failed], ONE) == []


def test_a_refused_search_does_not_open_the_gate() -> None:
    refused = ToolCall("search_documents", {"query": ""}, ok=False)
    scores = score([refused, optimize(volfrac=0.46)], ONE)
    assert scores["rag_accuracy"] == 0.0
    assert scores["raw_acc_volfrac"] == 1.0  # the design is right, but no search informed it


def test_a_failed_optimisation_is_not_read() -> None:
    """The parameters come from the first optimisation that succeeded, not the first made."""
    failed = optimize(volfrac=0.46, ok=False)
    wrong = optimize(volfrac=0.30)
    scores = score([SEARCH, failed, wrong], ONE)
    assert scores["rag_accuracy"] == pytest.approx(0.4)  # the search weight only
    assert read_parameter([SEARCH, failed, wrong], "volfrac").call_index == 2


def test_a_search_after_the_design_informs_nothing() -> None:
    """The order is checked: a search made after the optimisation earns neither the search
    weight nor the accuracy; the right design after a search does."""
    late = [optimize(volfrac=0.46), SEARCH]
    assert score(late, ONE)["rag_accuracy"] == 0.0
    two = [optimize(volfrac=0.30), SEARCH, optimize(volfrac=0.58, forcedist=0.62)]
    scores = score(two, TWO)
    # volfrac comes from the first design (before any search): gated out; forcedist counts
    assert (scores["acc_volfrac"], scores["acc_forcedist"]) == (0.0, 1.0)
    assert scores["rag_accuracy"] == pytest.approx(0.4 + 0.2)


def test_contributions_add_up_to_the_score() -> None:
    calls = [SEARCH, optimize(volfrac=0.58, forcedist=0.62, rmin=5.0)]
    scores = score(calls, THREE)
    parts = contributions(scores, list(THREE))
    assert parts == pytest.approx({"search": 0.1, "volfrac": 0.3, "forcedist": 0.3, "rmin": 0.0})
    assert sum(parts.values()) == pytest.approx(scores["rag_accuracy"])


def test_scoring_takes_one_to_three_parameters() -> None:
    with pytest.raises(ValueError, match="1 to 3"):
        score([], {})
    with pytest.raises(ValueError, match="1 to 3"):
        score([], {**THREE, "max_iter": 10})


def test_the_prompts_weights_follow_their_parameter_counts() -> None:
    assert [len(BY_ID[p].targets) for p in ("P0", "P1", "P2", "P3")] == [1, 2, 2, 3]
    # every target is out of tolerance of the default and of the distractor: neither a guess
    # nor the superseded value can score
    for prompt in BY_ID.values():
        for parameter, target in prompt.targets.items():
            tolerance = {"volfrac": 0.05, "forcedist": 0.05, "rmin": 0.5}[parameter]
            assert abs(target - DEFAULTS[parameter]) > tolerance, (prompt.id, parameter)
            assert abs(target - prompt.distractors[parameter]) > tolerance, (prompt.id, parameter)


def test_values_are_read_from_passage_text_and_snippets() -> None:
    assert value_in("a volume fraction (volfrac) 0.58 and", "volfrac") == 0.58
    assert value_in("[force] [position] (forcedist) 0.62,", "forcedist") == 0.62
    assert value_in("filter radius (rmin) [3].7 elements", "rmin") == 3.7  # FTS highlight
    assert value_in("rmin = 2.5", "rmin") == 2.5
    # a number that does not follow the name is not the value
    assert value_in("the filter radius of a plain study for CB-7", "rmin") is None


def test_superseded_passages_are_told_apart() -> None:
    lookup = Lookup("volfrac", "q", "CB-7", "guide")
    passages = [
        {"rank": 1, "source": "notes", "text": "Superseded sketch: CB-7 volume fraction 0.71"},
        {"rank": 2, "source": "guide", "text": "Bracket CB-7 uses a volume fraction 0.58"},
        {"rank": 3, "source": "other", "text": "Bracket CB-9 uses a volume fraction 0.33"},
    ]
    assert read_value(passages, lookup, superseded=False) == {
        "parameter": "volfrac",
        "value": 0.58,
        "source": "guide",
        "page": None,
        "rank": 2,
    }
    assert (read_value(passages, lookup, superseded=True) or {})["value"] == 0.71
    assert read_value(passages[2:], lookup, superseded=False) is None
