"""A scripted (fake) model plays whole workflow styles through the real agent runtime and the real
EngiBench optimiser, so the cell's scores come from what the agent actually did.

The script is written before the run, so it cannot know the optimised design's path: it names the
design "last" (simulate_design's design_description and convert_design_to_stl's npy_file_path),
which the topopt tools resolve to the newest optimised design of this workspace.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from workbench.bench.runner import PlannedCell, execute_cell
from workbench_plugins.topopt.bench import ground_truth, tasks
from workbench_plugins.topopt.bench.draws import Export
from workbench_plugins.topopt.bench.suite import WorkflowSuite
from workbench_plugins.topopt.bench.tasks import TaskSpec

PROBLEM, SEED, EXAMPLE = "beams2d", 0, 0
W_RAND_CALLS = ["optimize_design", "simulate_design", "convert_design_to_stl"]
# CO = 0.65 DQ + 0.20 ToolUse + 0.15 TC. A cell without task completion scores at most 0.85, so
# a floor above it can only be passed with TC = 1; with TU = TC = 1, the weakest "right design"
# we accept (DQ > 0.9, asserted separately) gives CO > 0.65 * 0.9 + 0.35 = 0.935. (The scripted
# run reproduces the ground truth exactly: IoU 1, CO 0.99999.)
COMBINED_FLOOR = 0.93


@pytest.fixture(scope="module")
def truth_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Beams2D (seed 0, example 0) ground truth, optimised once for this module: every style
    of that example shares its conditions, hence its cache entry."""
    cache = tmp_path_factory.mktemp("truth-cache")
    spec = tasks.build(PROBLEM, "W-RAND", SEED, EXAMPLE)
    ground_truth.ground_truth(cache, PROBLEM, spec.conditions, spec.config, SEED)
    return cache


@pytest.fixture
def workflow_context(context, truth_cache: Path):
    """The conftest's per-test context, its cache seeded with the shared ground truth."""
    shutil.copytree(truth_cache, context.paths.cache_dir, dirs_exist_ok=True)
    return context


def stl_call(export: Export, path: Path) -> dict[str, Any]:
    return {
        "name": "convert_design_to_stl",
        "args": {
            "problem_type": PROBLEM,
            "npy_file_path": "last",  # the newest optimised design: the script cannot know its path
            "stl_file_path": str(path),
            **export.as_dict(),
        },
    }


def scripted_replies(spec: TaskSpec, exports: list[Export], folder: Path) -> list[dict[str, Any]]:
    """Supervisor hand-off, the specialist's calls one per reply, its report, the final answer
    (supervisor and specialist share the one script)."""
    return [
        {"tool_calls": [{"name": "transfer_to_topopt", "args": {"task": spec.prompt}}]},
        {
            "tool_calls": [
                {
                    "name": "optimize_design",
                    "args": {
                        "problem_type": PROBLEM,
                        "problem_config": spec.config,
                        "seed": spec.seed,
                    },
                }
            ]
        },
        {
            "tool_calls": [
                {
                    "name": "simulate_design",
                    "args": {
                        "problem_type": PROBLEM,
                        "design_description": "last",
                        "seed": spec.seed,
                    },
                }
            ]
        },
        *[
            {"tool_calls": [stl_call(export, folder / f"export_{index}.stl")]}
            for index, export in enumerate(exports)
        ],
        {"content": "Optimised, simulated and exported the beam as asked."},
        {"content": "Done: the beam is optimised and exported as an STL file."},
    ]


def play(style: str, exports: list[Export] | None, context, tmp_path: Path) -> dict[str, Any]:
    """Run the cell (style, seed 0, example 0) with a scripted model; `exports` default to the
    task's expected ones."""
    spec = tasks.build(PROBLEM, style, SEED, EXAMPLE)
    folder = tmp_path / "stl"
    folder.mkdir()
    # outside the cell's workspace: allowed, or the headless run would refuse to confirm it
    context.settings.allowed_folders = [str(folder)]
    replies = scripted_replies(spec, list(exports or spec.draws.expected), folder)
    return run_script(style, replies, context, tmp_path)


def run_script(
    style: str, replies: list[dict[str, Any]], context, tmp_path: Path
) -> dict[str, Any]:
    """The cell (style, seed 0, example 0) played by a scripted model with these replies."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies))
    suite = WorkflowSuite(PROBLEM)
    task = next(t for t in suite.tasks() if t.id == f"{PROBLEM}/{style}/e{EXAMPLE}")
    record = execute_cell(
        suite, PlannedCell(suite.name, task, f"scripted:{script}", SEED), context, tmp_path / "out"
    )
    assert record["status"] == "ok", record.get("error")
    agent = record["details"]["agent"]
    assert agent["status"] == "done" and agent["model_calls"] == len(replies), agent
    return record


def assert_right_design(scores: dict[str, float]) -> None:
    assert scores["design_found"] == 1.0
    assert scores["iou"] > 0.9 and scores["pixel_accuracy"] > 0.9
    assert scores["watertight"] == 1.0
    assert scores["design_quality"] > 0.9


def test_scripted_model_plays_w_rand_end_to_end(workflow_context, tmp_path: Path) -> None:
    record = play("W-RAND", None, workflow_context, tmp_path)
    scores, calls = record["scores"], record["details"]["calls"]
    assert [c["tool"] for c in calls] == W_RAND_CALLS and all(c["ok"] for c in calls), calls
    assert scores["task_completion"] == 1.0, calls
    assert scores["tool_use"] == 1.0
    assert_right_design(scores)
    assert scores["combined"] > COMBINED_FLOOR, scores
    (expected,) = tasks.build(PROBLEM, "W-RAND", SEED, EXAMPLE).draws.expected
    exported = calls[-1]["result"]
    assert exported["threshold"] == expected.threshold
    assert exported["mirrored"] == expected.mirror_y
    assert (exported["scale_xy"], exported["scale_z"]) == (expected.scale_xy, expected.scale_z)
    assert exported["design_sha256"] == calls[0]["result"]["design_sha256"]  # the optimised one
    assert exported["stl_path"] == "export_0.stl"  # the record keeps no absolute path
    assert (tmp_path / "stl" / "export_0.stl").is_file()  # written where the script asked


def test_scripted_model_with_a_wrong_threshold_fails_the_task_not_the_design(
    workflow_context, tmp_path: Path
) -> None:
    (expected,) = tasks.build(PROBLEM, "W-RAND", SEED, EXAMPLE).draws.expected
    shift = 0.2 if expected.threshold < 0.5 else -0.2  # stays inside the (0.3, 0.7) range's span
    wrong = Export(
        round(expected.threshold + shift, 2), expected.mirror_y, expected.scale_xy, expected.scale_z
    )
    record = play("W-RAND", [wrong], workflow_context, tmp_path)
    scores, calls = record["scores"], record["details"]["calls"]
    assert [c["tool"] for c in calls] == W_RAND_CALLS and all(c["ok"] for c in calls), calls
    assert calls[-1]["result"]["threshold"] == wrong.threshold  # what the agent really exported
    assert scores["task_completion"] == 0.0
    assert scores["tool_use"] == 1.0  # the right calls, one wrong value
    assert_right_design(scores)
    assert scores["combined"] < COMBINED_FLOOR  # the floor of the right run needs TC = 1


def test_scripted_model_plays_w_multi_with_two_exports_in_order(
    workflow_context, tmp_path: Path
) -> None:
    spec = tasks.build(PROBLEM, "W-MULTI", SEED, EXAMPLE)
    first, second = spec.draws.expected
    record = play("W-MULTI", None, workflow_context, tmp_path)
    scores, calls = record["scores"], record["details"]["calls"]
    assert [c["tool"] for c in calls] == list(spec.optimal_calls), calls
    assert [c["result"]["threshold"] for c in calls[2:]] == [first.threshold, second.threshold]
    assert [c["result"]["mirrored"] for c in calls[2:]] == [first.mirror_y, second.mirror_y]
    assert scores["task_completion"] == 1.0 and scores["tool_use"] == 1.0, calls
    assert_right_design(scores)
    assert scores["combined"] > COMBINED_FLOOR, scores


def test_scripted_model_asks_in_natural_and_follows_the_engineers_answer(
    workflow_context, tmp_path: Path
) -> None:
    """NATURAL gives the beam in words. The agent asks, the simulated engineer answers with the
    task's true numbers, the agent optimises with them: task completed (it asked), full tool use
    for ask + optimise, and its design is scored against the ground truth like any other."""
    spec = tasks.build(PROBLEM, "NATURAL", SEED, EXAMPLE)
    answer = tasks.engineer_answer(spec)
    told = json.loads(answer[answer.index("{") : answer.rindex("}") + 1])
    assert told == {k: spec.conditions[k] for k in ("volfrac", "forcedist", "rmin")}
    question = "Which volume fraction, force position and filter radius?"
    replies = [
        {"tool_calls": [{"name": "transfer_to_topopt", "args": {"task": spec.prompt}}]},
        {
            "tool_calls": [
                {
                    "name": "ask_human_for_clarification",
                    "args": {"clarification_request": question},
                }
            ]
        },
        {  # what a model that read the answer sends: the numbers it was told
            "tool_calls": [
                {
                    "name": "optimize_design",
                    "args": {"problem_type": PROBLEM, "problem_config": told, "seed": SEED},
                }
            ]
        },
        {"content": "Optimised the beam with the engineer's numbers."},
        {"content": "Done: the beam is optimised as the engineer specified."},
    ]
    record = run_script("NATURAL", replies, workflow_context, tmp_path)
    assert record["details"]["agent"]["human_answers"] == [{"question": question, "answer": answer}]
    scores, calls = record["scores"], record["details"]["calls"]
    assert [c["tool"] for c in calls] == list(tasks.NATURAL_ANSWERED_CALLS), calls
    assert calls[1]["args"]["problem_config"] == told
    assert scores["task_completion"] == 1.0 and scores["abstained"] == 0.0
    assert scores["tool_use"] == 1.0
    assert scores["design_found"] == 1.0 and scores["iou"] > 0.9
    # the best a design without an STL export can score (WT = 0), as in FULL
    assert scores["design_quality"] > 0.85, scores
