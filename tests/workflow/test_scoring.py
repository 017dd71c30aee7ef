"""Every sub-score on hand-made designs and call lists with known answers."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import pytest
import trimesh

from workbench_plugins.topopt.bench import scoring, tasks
from workbench_plugins.topopt.bench.scoring import ToolCall
from workbench_plugins.topopt.stl import StlSettings, export_stl

OPTIMISED, OTHER = "a" * 64, "b" * 64  # design_sha256 of the optimised design and of another one


def test_iou_and_pixel_accuracy_of_known_masks() -> None:
    a = np.zeros((4, 4))
    b = np.zeros((4, 4))
    a[:2, :] = 1.0  # 8 pixels
    b[:, :2] = 0.9  # 8 pixels, 4 shared
    assert scoring.iou(a, b) == pytest.approx(4 / 12)
    assert scoring.pixel_accuracy(a, b) == pytest.approx(8 / 16)  # 4 both-on + 4 both-off
    assert scoring.iou(np.zeros((2, 2)), np.zeros((2, 2))) == 0.0
    assert scoring.iou(a, a) == 1.0 and scoring.pixel_accuracy(a, a) == 1.0
    assert scoring.mse(np.full((2, 2), 0.5), np.zeros((2, 2))) == pytest.approx(0.25)
    # binarised at 0.5: 0.49 is void, 0.5 is material
    assert scoring.iou(np.array([[0.49, 0.5]]), np.array([[0.0, 1.0]])) == 1.0


def test_constraint_score_at_known_means() -> None:
    design = np.full((10, 10), 0.42)
    assert scoring.constraint_score(design, {"volfrac": 0.42}) == pytest.approx(1.0)
    assert scoring.constraint_score(design, {"volfrac": 0.40}) == pytest.approx(math.exp(-2))
    assert scoring.constraint_score(design, {"volfrac": 0.43}) == pytest.approx(math.exp(-1))
    with pytest.raises(ValueError, match="no constraint"):
        scoring.constraint_score(design, {})  # photonics: nothing to measure, nothing awarded


def test_objective_score() -> None:
    assert scoring.objective_score(100.0, 100.0) == 1.0
    assert scoring.objective_score(110.0, 100.0) == pytest.approx(0.5)  # 10 % of a 20 % band
    assert scoring.objective_score(80.0, 100.0) == 0.0
    assert scoring.objective_score(None, 100.0) == 0.0
    assert scoring.objective_score(0.05, 0.0) == pytest.approx(0.75)  # absolute error at t=0


def test_connectivity_of_one_two_and_diagonal_islands() -> None:
    two = np.zeros((5, 5))
    two[0, 0] = two[4, 4] = 1.0
    assert scoring.components(two) == 2 and scoring.connectivity(two) == 0.0
    diagonal = np.eye(3)  # touching at corners: one piece under 8-connectivity
    assert scoring.components(diagonal) == 1 and scoring.connectivity(diagonal) == 1.0
    assert scoring.connectivity(np.zeros((3, 3))) == 0.0


def test_watertight_export_versus_a_non_watertight_mesh(tmp_path: Path) -> None:
    open_box = trimesh.creation.box()
    open_box.faces = open_box.faces[:-1]  # one triangle missing
    leaky = tmp_path / "leaky.stl"
    open_box.export(leaky)
    assert not scoring.mesh_is_watertight(leaky)
    # per-pixel boxes (the reference's exporter) sharing faces and a corner: not one closed solid
    boxes = trimesh.util.concatenate(
        [
            trimesh.creation.box(bounds=[[0, 0, 0], [1, 1, 1]]),
            trimesh.creation.box(bounds=[[1, 1, 0], [2, 2, 1]]),
            trimesh.creation.box(bounds=[[1, 0, 0], [2, 1, 1]]),
        ]
    )
    touching = tmp_path / "boxes.stl"
    boxes.export(touching)
    assert not scoring.mesh_is_watertight(touching)
    ours = tmp_path / "ours.stl"
    export_stl(np.eye(4), ours, StlSettings())
    assert scoring.mesh_is_watertight(ours)
    # the tool's flag is not trusted: the file it wrote is re-checked
    assert scoring.watertight([optimize_call(), export_of(leaky)]) == 0.0
    assert scoring.watertight([optimize_call(), export_of(ours)]) == 1.0
    assert scoring.watertight([]) == 0.0


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_of(stl: Path, sha: str = OPTIMISED, ok: bool = True) -> ToolCall:
    """A successful export of design `sha` to `stl`, with the file's sha256 as the tool records
    it (and the tool's own claim that it is watertight)."""
    result = {"is_watertight": True, "stl_path": str(stl), "stl_sha256": sha256(stl)}
    return ToolCall("convert_design_to_stl", {}, ok, {**result, "design_sha256": sha})


def test_watertight_reads_the_scored_designs_export_and_its_file(tmp_path: Path) -> None:
    """Not the last export of any design; and a file gone or changed since the export scores 0
    whatever the tool claimed then."""
    ours, other = tmp_path / "ours.stl", tmp_path / "other.stl"
    export_stl(np.eye(4), ours, StlSettings())
    open_box = trimesh.creation.box()
    open_box.faces = open_box.faces[:-1]
    open_box.export(other)
    scored = [optimize_call(), export_of(ours)]
    assert scoring.watertight(scored) == 1.0
    # a later export of another design (a leaky one) does not speak for the scored design...
    assert scoring.watertight([*scored, export_of(other, sha=OTHER)]) == 1.0
    # ...and a watertight export of another design does not either
    assert scoring.watertight([optimize_call(), export_of(ours, sha=OTHER)]) == 0.0
    assert scoring.watertight([optimize_call(), export_of(ours, ok=False)]) == 0.0
    ours.write_bytes(other.read_bytes())  # changed since the export
    assert scoring.watertight(scored) == 0.0
    ours.unlink()  # gone: the flag "is_watertight" alone is not believed
    assert scoring.watertight(scored) == 0.0


def test_the_scored_stl_files_are_bound_to_what_the_export_recorded(tmp_path: Path) -> None:
    spec = tasks.build("beams2d", "W-MULTI", 0, 0)
    first, second, stray = (tmp_path / f"{name}.stl" for name in ("a", "b", "stray"))
    for path in (first, second, stray):
        export_stl(np.eye(4), path, StlSettings())
    calls = [optimize_call(), export_of(first), export_of(second), export_of(stray, sha=OTHER)]
    bindings = scoring.stl_bindings(calls, spec)
    assert [b.holds for b in bindings] == [True, True]  # the scored design's, not the stray one
    assert all(OPTIMISED[:12] in b.what for b in bindings)
    second.unlink()
    assert [b.holds for b in scoring.stl_bindings(calls, spec)] == [True, False]
    unrecorded = export_of(first)
    del unrecorded.result["stl_sha256"]  # type: ignore[union-attr]
    [binding] = scoring.stl_bindings(
        [optimize_call(), unrecorded], tasks.build("beams2d", "W-RAND", 0, 0)
    )
    assert not binding.holds  # no recorded sha256: nothing to hold the file to
    assert scoring.stl_bindings(calls, tasks.build("beams2d", "FULL", 0, 0)) == []


def calls_named(*names: str, ok: bool = True) -> list[ToolCall]:
    return [ToolCall(name, {}, ok, {}) for name in names]


def test_tool_use_paper_and_reference_variants() -> None:
    optimal = ("optimize_design", "simulate_design", "convert_design_to_stl")
    assert scoring.tool_use(calls_named(*optimal), optimal) == 1.0
    extra = calls_named(*optimal, "simulate_design", "get_problem_details")
    assert scoring.tool_use(extra, optimal) == pytest.approx(3 / 5)
    assert scoring.tool_efficiency_reference(extra, optimal) == pytest.approx(3 / 5)
    wrong = calls_named("render_design", "render_design", "render_design")  # wrong tools
    assert scoring.tool_use(wrong, optimal) == 0.0
    assert scoring.tool_efficiency_reference(wrong, optimal) == 1.0  # the reference's blind spot
    assert (
        scoring.tool_use([], optimal) == 0.0
        and scoring.tool_efficiency_reference([], optimal) == 0.0
    )
    assert scoring.tool_use(calls_named("optimize_design"), optimal) == pytest.approx(1 / 3)


def test_a_failed_call_never_matches_but_counts_among_the_calls_made() -> None:
    optimal = ("optimize_design", "simulate_design", "convert_design_to_stl")
    refused = calls_named(*optimal, ok=False)
    assert scoring.tool_use(refused, optimal) == 0.0
    assert scoring.tool_efficiency_reference(refused, optimal) == 0.0
    retried = [*calls_named("optimize_design", ok=False), *calls_named(*optimal)]
    assert scoring.tool_use(retried, optimal) == pytest.approx(3 / 4)


def optimize_call(sha: str = OPTIMISED, **result: object) -> ToolCall:
    return ToolCall("optimize_design", {}, True, {"design_sha256": sha, **result})


def stl_call(
    threshold: float, mirror: bool, xy: float, z: float, ok: bool = True, sha: str = OPTIMISED
) -> ToolCall:
    result = {"threshold": threshold, "mirrored": mirror, "scale_xy": xy, "scale_z": z}
    return ToolCall("convert_design_to_stl", {}, ok, {**result, "design_sha256": sha})


def render_call(sha: str = OPTIMISED, ok: bool = True) -> ToolCall:
    return ToolCall("render_design", {}, ok, {"design_sha256": sha})


def completion(calls: list[ToolCall], spec: tasks.TaskSpec) -> float:
    """Task completion after the cell optimised its design (OPTIMISED)."""
    return scoring.task_completion([optimize_call(), *calls], spec)


def test_task_completion_validates_export_parameters() -> None:
    spec = tasks.build("beams2d", "W-RAND", 42, 0)  # 0.58, mirror, 2.47, 17.9
    assert completion([stl_call(0.58, True, 2.47, 17.9)], spec) == 1.0
    assert completion([stl_call(0.62, True, 2.51, 17.86)], spec) == 1.0
    assert completion([stl_call(0.64, True, 2.47, 17.9)], spec) == 0.0  # >= 0.05
    assert completion([stl_call(0.58, False, 2.47, 17.9)], spec) == 0.0
    assert completion([stl_call(0.58, True, 2.47, 17.9, ok=False)], spec) == 0.0
    # the last successful export is judged
    calls = [stl_call(0.58, True, 2.47, 17.9), stl_call(0.3, True, 2.47, 17.9)]
    assert completion(calls, spec) == 0.0
    assert completion([], spec) == 0.0


def test_task_completion_multi_full_and_natural() -> None:
    multi = tasks.build("beams2d", "W-MULTI", 0, 0)
    a, b = (stl_call(e.threshold, e.mirror_y, e.scale_xy, e.scale_z) for e in multi.draws.expected)
    assert completion([a, b], multi) == 1.0
    assert completion([b, a], multi) == 0.0
    assert completion([a], multi) == 0.0
    full = tasks.build("beams2d", "FULL", 0, 0)
    assert completion([render_call()], full) == 1.0
    assert completion([render_call(ok=False)], full) == 0.0
    natural = tasks.build("beams2d", "NATURAL", 0, 0)
    assert scoring.task_completion([ToolCall("ask_human_for_clarification")], natural) == 1.0
    assert scoring.task_completion([optimize_call()], natural) == 0.0


def test_task_completion_needs_the_cells_optimised_design() -> None:
    """An export or render of "initial", of a random field or of another .npy completes nothing,
    even with every parameter right; so does one without any optimisation in the cell."""
    spec = tasks.build("beams2d", "W-RAND", 42, 0)
    right = (0.58, True, 2.47, 17.9)
    assert completion([stl_call(*right)], spec) == 1.0
    assert completion([stl_call(*right, sha=OTHER)], spec) == 0.0
    assert scoring.task_completion([stl_call(*right)], spec) == 0.0  # nothing was optimised
    # the last optimisation is the cell's design: an export of an earlier one does not count
    earlier = [optimize_call(OTHER), stl_call(*right, sha=OTHER), optimize_call()]
    assert scoring.task_completion(earlier, spec) == 0.0
    # a result without a design_sha256 (a foreign or old tool) is not trusted either
    unmarked = ToolCall("convert_design_to_stl", {}, True, dict(stl_call(*right).result or {}))
    del unmarked.result["design_sha256"]  # type: ignore[union-attr]
    assert completion([unmarked], spec) == 0.0
    multi = tasks.build("beams2d", "W-MULTI", 0, 0)
    a, b = multi.draws.expected
    mixed = [
        stl_call(a.threshold, a.mirror_y, a.scale_xy, a.scale_z),
        stl_call(b.threshold, b.mirror_y, b.scale_xy, b.scale_z, sha=OTHER),
    ]
    assert completion(mixed, multi) == 0.0
    full = tasks.build("beams2d", "FULL", 0, 0)
    assert completion([render_call(OTHER)], full) == 0.0
    assert completion([render_call(OTHER), render_call()], full) == 1.0
    assert scoring.task_completion([render_call()], full) == 0.0


def test_natural_question_counts_only_before_the_design() -> None:
    natural = tasks.build("beams2d", "NATURAL", 0, 0)
    ask = ToolCall("ask_human_for_clarification", {}, True, None)
    assert scoring.task_completion([ask, optimize_call()], natural) == 1.0  # asked, then followed
    assert scoring.task_completion([optimize_call(), ask], natural) == 0.0  # guessed, then asked


def test_objective_is_read_from_the_scored_design() -> None:
    """Not from the first simulation: from the one of the design that is scored (the last
    optimisation's), else from that optimisation's own final value."""
    spec = tasks.build("beams2d", "W-RAND", 0, 0)

    def simulate(sha: str, c: float) -> ToolCall:
        return ToolCall("simulate_design", {}, True, {"c": c, "design_sha256": sha})

    calls = [simulate(OTHER, 500.0), optimize_call(final_c=101.0), simulate(OPTIMISED, 100.0)]
    assert scoring.extract_objective(calls, "c") == 100.0
    # only a simulation of some other design (the random start): the optimiser's final value
    calls = [optimize_call(final_c=101.0), simulate(OTHER, 100.0)]
    assert scoring.extract_objective(calls, "c") == 101.0
    # a simulation of an earlier optimisation does not speak for the last one
    calls = [optimize_call(OTHER), simulate(OTHER, 100.0), optimize_call(final_c=300.0)]
    assert scoring.extract_objective(calls, "c") == 300.0
    assert scoring.extract_objective([simulate(OTHER, 100.0)], "c") is None  # no design
    truth = np.zeros((50, 100))
    truth[:, :40] = 1.0
    design = {"optimized_design": truth.tolist(), "final_c": 130.0}
    scores, _ = scoring.score_cell(
        [simulate(OTHER, 100.0), optimize_call(**design)], spec, truth, 100.0
    )
    assert scores["objective"] == 0.0  # 30 % off: the random design's 100 is not its value


def test_score_cell_combines_with_the_papers_weights() -> None:
    spec = tasks.build("beams2d", "FULL", 0, 0)  # volfrac 0.4
    truth = np.zeros((50, 100))
    truth[:, :40] = 1.0  # mean 0.4, one piece
    calls = [
        optimize_call(optimized_design=truth.tolist()),
        ToolCall("simulate_design", {}, True, {"c": 110.0, "design_sha256": OPTIMISED}),
        render_call(),
    ]
    scores, design = scoring.score_cell(calls, spec, truth, 100.0)
    assert design is not None and scores["iou"] == 1.0 and scores["objective"] == pytest.approx(0.5)
    assert scores["constraint"] == pytest.approx(1.0)
    # FULL asks for no STL: the watertight term has nothing to measure, so it is left out and
    # the other weights renormalised (their sum, 0.89, scaled to 1)
    assert "watertight" not in scores
    dq = (0.31 + 0.19 + 0.15 * 0.5 + 0.12 + 0.12) / 0.89
    assert scores["design_quality"] == pytest.approx(dq)
    assert scores["combined"] == pytest.approx(0.65 * dq + 0.20 + 0.15)


def test_photonics_has_no_constraint_so_none_is_awarded(tmp_path: Path) -> None:
    """The paper's constraint term is 1 without a constraint: 0.12 of design quality for
    nothing. Left out, the other weights renormalised, a design that is wrong everywhere else
    scores 0, not 0.12."""
    spec = tasks.build("photonics2d", "W-RAND", 0, 0)
    truth = np.zeros((20, 20))
    truth[5:15, 5:15] = 1.0
    wrong = np.zeros((20, 20))
    wrong[0, 0] = wrong[19, 19] = 1.0  # two islands, nothing shared with the truth
    calls = [optimize_call(optimized_design=wrong.tolist(), final_total_overlap=0.0)]
    scores, _ = scoring.score_cell(calls, spec, truth, 1.0)
    assert "constraint" not in scores
    assert scores["iou"] == 0.0 and scores["connectivity"] == 0.0 and scores["objective"] == 0.0
    assert scores["design_quality"] == pytest.approx(0.19 * scores["pixel_accuracy"] / 0.88)
    right = [optimize_call(optimized_design=truth.tolist(), final_total_overlap=1.0)]
    right_scores, _ = scoring.score_cell(right, spec, truth, 1.0)
    # right in every term but the STL it never exported: 0.77 of the 0.88 measured
    assert right_scores["design_quality"] == pytest.approx(0.77 / 0.88)


def test_failed_calls_earn_nothing() -> None:
    """The reference's calls, each refused: no design, no completion, no tool use."""
    for problem, style in (("beams2d", "W-MULTI"), ("beams2d", "FULL"), ("photonics2d", "W-COND")):
        spec = tasks.build(problem, style, 0, 0)
        refused = calls_named(*spec.optimal_calls, ok=False)
        scores, design = scoring.score_cell(refused, spec, np.ones((20, 20)), 1.0)
        assert design is None
        assert scores["combined"] == 0.0 and scores["task_completion"] == 0.0, (style, scores)


def test_natural_abstention_gets_full_design_quality() -> None:
    spec = tasks.build("beams2d", "NATURAL", 0, 0)
    truth = np.ones((50, 100))
    scores, design = scoring.score_cell(
        [ToolCall("ask_human_for_clarification", {}, True, {})], spec, truth, 100.0
    )
    assert design is None and scores["abstained"] == 1.0
    assert scores["design_quality"] == 1.0 and scores["combined"] == pytest.approx(1.0)
    silent, _ = scoring.score_cell([], spec, truth, 100.0)
    assert silent["design_quality"] == 0.0 and silent["combined"] == 0.0


def test_wrong_shape_scores_zero_and_objective_falls_back_to_the_optimiser() -> None:
    spec = tasks.build("beams2d", "W-DERIVED", 0, 0)
    truth = np.ones((50, 100))
    calls = [ToolCall("optimize_design", {}, True, {"optimized_design": [[1.0]], "final_c": 99.0})]
    scores, _ = scoring.score_cell(calls, spec, truth, 100.0)
    assert scores["iou"] == 0.0 and scores["pixel_accuracy"] == 0.0
    assert scores["objective"] == pytest.approx(0.95)


def test_natural_ask_then_follow_is_scored_on_its_design_without_a_tool_use_penalty() -> None:
    """The headless engineer answers with the true numbers; following them is a right path:
    TC for asking, full tool use for ask + optimise, and the design scored like any other."""
    natural = tasks.build("beams2d", "NATURAL", 0, 0)
    truth = np.zeros((50, 100))
    truth[:, :40] = 1.0  # mean 0.4 = this task's volfrac, one piece
    ask = ToolCall("ask_human_for_clarification", {}, True, None)
    followed = optimize_call(optimized_design=truth.tolist(), final_c=100.0)
    scores, design = scoring.score_cell([ask, followed], natural, truth, 100.0)
    assert design is not None and scores["abstained"] == 0.0
    assert scores["task_completion"] == 1.0 and scores["tool_use"] == 1.0
    assert scores["iou"] == 1.0 and scores["objective"] == 1.0
    # no STL was asked for, so none is scored: a perfect followed design equals abstaining
    assert scores["design_quality"] == pytest.approx(1.0)
    assert scores["combined"] == pytest.approx(1.0)
    wrong = optimize_call(optimized_design=np.fliplr(truth).tolist(), final_c=100.0)
    worse, _ = scoring.score_cell([ask, wrong], natural, truth, 100.0)
    assert worse["iou"] == 0.0 and worse["design_quality"] < scores["design_quality"] - 0.4
    # asking and then doing more than the prompt asks costs tool use, as in every style
    extra = [ask, followed, ToolCall("render_design", {}, True, {})]
    assert scoring.score_cell(extra, natural, truth, 100.0)[0]["tool_use"] == pytest.approx(2 / 3)
