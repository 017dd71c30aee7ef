"""Task generation: the reference's draws for (seed, example), pinned for every style."""

from __future__ import annotations

import json

import pytest

from workbench_plugins.topopt.bench import tasks


def exports(problem: str, style: str, seed: int, example: int, target: float = 200.0) -> list:
    spec = tasks.build(problem, style, seed, example, target=target)
    return [(e.threshold, e.mirror_y, e.scale_xy, e.scale_z) for e in spec.draws.expected]


def test_w_rand_seed_42_example_0_matches_the_reference() -> None:
    spec = tasks.build("beams2d", "W-RAND", 42, 0)
    assert exports("beams2d", "W-RAND", 42, 0) == [(0.58, True, 2.47, 17.9)]
    for text in (
        "0.58 density threshold",
        "Mirror the design across the y-axis",
        "by 2.47",
        "17.9",
    ):
        assert text in spec.prompt
    assert spec.optimal_calls == ("optimize_design", "simulate_design", "convert_design_to_stl")


PINNED = {
    # (seed, example): style -> exports (threshold, mirror, scale_xy, scale_z)
    (0, 0): {
        "W-RAND": [(0.31, False, 1.71, 5.6)],
        "W-DERIVED": [(0.4, False, 3.2, 16.0)],
        "W-DISTRACT": [(0.31, False, 1.71, 5.6)],
        "W-COND": [(0.31, False, 4.61, 14.1)],
        "W-MULTI": [(0.41, False, 4.16, 14.1), (0.31, True, 4.61, 15.9)],
    },
    (42, 3): {
        "W-RAND": [(0.62, False, 2.88, 16.5)],
        "W-DERIVED": [(0.33, False, 7.6, 13.2)],
        "W-DISTRACT": [(0.62, False, 2.88, 16.5)],
        "W-COND": [(0.62, True, 4.01, 16.9)],
        "W-MULTI": [(0.51, False, 2.8, 16.9), (0.62, True, 4.01, 13.9)],
    },
    (1, 0): {
        "W-RAND": [(0.68, True, 4.78, 7.2)],
        "W-DERIVED": [(0.35, False, 3.8, 14.0)],
        "W-DISTRACT": [(0.68, True, 4.78, 7.2)],
        "W-COND": [(0.36, True, 1.9, 11.3)],
        "W-MULTI": [(0.68, True, 4.77, 11.3), (0.36, False, 1.9, 17.4)],
    },
}
CONDITIONS = {
    (0, 0): {"volfrac": 0.4, "forcedist": 0.27, "rmin": 1.6},
    (42, 3): {"volfrac": 0.33, "forcedist": 0.37, "rmin": 3.8},
    (1, 0): {"volfrac": 0.35, "forcedist": 0.95, "rmin": 1.9},
}
EXTRAS = {
    (0, 0): {"W-DISTRACT": (0.51, 2.41), "W-COND": 227.4},
    (42, 3): {"W-DISTRACT": (0.4, 1.72), "W-COND": 214.6},
    (1, 0): {"W-DISTRACT": (0.55, 2.02), "W-COND": 202.4},
}


@pytest.mark.parametrize("seed_example", sorted(PINNED))
def test_pinned_draws_of_every_style(seed_example: tuple[int, int]) -> None:
    seed, example = seed_example
    assert tasks.sample_conditions("beams2d", seed, example) == CONDITIONS[seed_example]
    for style, expected in PINNED[seed_example].items():
        assert exports("beams2d", style, seed, example) == expected, style
    distract = tasks.build("beams2d", "W-DISTRACT", seed, example).draws.extra
    assert (distract["preview_threshold"], distract["preview_scale_xy"]) == EXTRAS[seed_example][
        "W-DISTRACT"
    ]
    assert (
        tasks.build("beams2d", "W-COND", seed, example, 0.0).draws.extra["limit"]
        == EXTRAS[seed_example]["W-COND"]
    )
    for style in ("FULL", "NATURAL"):
        assert tasks.build("beams2d", style, seed, example).draws.expected == ()


def test_draws_keep_their_gaps_and_the_branch_follows_the_ground_truth() -> None:
    for seed in range(30):
        for example in range(5):
            (real,) = tasks.build("beams2d", "W-DISTRACT", seed, example).draws.expected
            extra = tasks.build("beams2d", "W-DISTRACT", seed, example).draws.extra
            assert abs(extra["preview_threshold"] - real.threshold) >= 0.09
            assert abs(extra["preview_scale_xy"] - real.scale_xy) >= 0.49
            a, b = tasks.build("beams2d", "W-MULTI", seed, example).draws.expected
            assert a.mirror_y != b.mirror_y and abs(a.threshold - b.threshold) >= 0.09
            cond = tasks.build("beams2d", "W-COND", seed, example, 0.0).draws.extra
            high, low = cond["branches"]["high"], cond["branches"]["low"]
            assert high["mirror_y"] != low["mirror_y"]
            assert abs(high["threshold"] - low["threshold"]) >= 0.09
    limit = tasks.build("beams2d", "W-COND", 0, 0, 0.0).draws.extra["limit"]
    assert tasks.build("beams2d", "W-COND", 0, 0, limit + 1).draws.extra["branch"] == "high"
    assert tasks.build("beams2d", "W-COND", 0, 0, limit).draws.extra["branch"] == "low"


def test_conditions_do_not_depend_on_how_many_examples_and_stay_in_range() -> None:
    first = [tasks.sample_conditions("beams2d", 7, e) for e in range(5)]
    assert first == [tasks.sample_conditions("beams2d", 7, e) for e in range(5)]
    assert len({tuple(c.values()) for c in first}) == 5
    for example in range(20):
        beams = tasks.sample_conditions("beams2d", 3, example)
        assert 0.15 <= beams["volfrac"] <= 0.55 and 1.5 <= beams["rmin"] <= 4.0
        photonics = tasks.sample_conditions("photonics2d", 3, example)
        assert 0.5 <= photonics["lambda1"] <= 1.25 and 0.75 <= photonics["lambda2"] <= 1.5
        assert photonics["blur_radius"] in range(5)


def test_styles_prompts_and_optimal_calls() -> None:
    assert tasks.styles("beams2d") == tasks.BEAMS_STYLES and len(tasks.BEAMS_STYLES) == 7
    natural = tasks.build("beams2d", "NATURAL", 0, 0)
    assert "0.4" not in natural.prompt and "moderate material usage" in natural.prompt
    assert natural.optimal_calls == ("ask_human_for_clarification",)
    derived = tasks.build("beams2d", "W-DERIVED", 0, 0)
    assert "twice the filter radius" in derived.prompt and "3.2" not in derived.prompt
    photonics = tasks.build("photonics2d", "W-COND", 0, 0, target=0.5)
    assert "total_overlap" in photonics.prompt
    assert photonics.config["num_optimization_steps"] == tasks.PHOTONICS_STEPS
    assert f"num_optimization_steps: {tasks.PHOTONICS_STEPS}" in photonics.prompt
    with pytest.raises(ValueError, match="not a photonics2d style"):
        tasks.build("photonics2d", "FULL", 0, 0)


def test_photonics_tasks_follow_the_reference_prompts() -> None:
    """Every Photonics2D style asks for the simulation (so it is an optimal call), and W-COND's
    total_overlap limit is drawn from [0.05, 0.35] (our ground truths' spread) at 2 decimals,
    without changing the reference's export draws that follow it."""
    for style in tasks.PHOTONICS_STYLES:
        spec = tasks.build("photonics2d", style, 0, 0, target=0.3)
        assert "photonic structure optimization, simulate the result" in spec.prompt or (
            style == "W-COND" and "simulate the result" in spec.prompt
        )
        assert "2. Simulation" in spec.prompt and "3. Post-processing & Export" in spec.prompt
        assert spec.optimal_calls == (
            "optimize_design",
            "simulate_design",
            "convert_design_to_stl",
        )
    assert tasks.build("beams2d", "W-DISTRACT", 0, 0).optimal_calls == (
        "optimize_design",
        "convert_design_to_stl",
    )
    limits = [
        tasks.build("photonics2d", "W-COND", seed, 0, target=0.3).draws.extra["limit"]
        for seed in range(30)
    ]
    assert tasks.build("photonics2d", "W-COND", 0, 0, target=0.3).draws.extra["limit"] == 0.24
    assert all(0.05 <= limit <= 0.35 and round(limit, 2) == limit for limit in limits)
    beams_exports = exports("beams2d", "W-COND", 0, 0, target=100.0)
    assert exports("photonics2d", "W-COND", 0, 0, target=0.0) == beams_exports
    branches = {
        tasks.build("photonics2d", "W-COND", 0, 0, target=target).draws.extra["branch"]
        for target in (0.23, 0.25)
    }
    assert branches == {"low", "high"}


def test_the_simulated_engineer_answers_natural_with_the_hidden_numbers() -> None:
    """NATURAL hides the numbers in words; the headless engineer's answer gives exactly those the
    ground truth is optimised with, and nothing else where the prompt already has them."""
    for example in range(tasks.EXAMPLES):
        spec = tasks.build("beams2d", "NATURAL", 3, example)
        answer = tasks.engineer_answer(spec)
        stated = json.loads(answer[answer.index("{") : answer.rindex("}") + 1])
        assert stated == {k: spec.config[k] for k in ("volfrac", "forcedist", "rmin")}
        assert str(spec.conditions["volfrac"]) not in spec.prompt  # hidden until asked
    full = tasks.build("beams2d", "FULL", 3, 0)
    assert not any(ch.isdigit() for ch in tasks.engineer_answer(full))  # nothing new to add
