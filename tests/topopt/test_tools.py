"""The tools through the registry (and the CLI): results, artifacts, ledger, streaming, errors."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import trimesh

from workbench.core.events import JobProgress, JobStarted
from workbench.core.ledger import Status

BEAM = {"volfrac": 0.4, "forcedist": 0.65, "rmin": 4.0}
ACCEPTANCE = {"problem_type": "beams2d", "problem_config": BEAM, "seed": 42}


def call(context: Any, tool: str, arguments: dict[str, Any]) -> Any:
    return context.registry.call(tool, arguments, caller="test")


def test_cli_optimize_design_reports_compliance_30_909(workbench_home: Path) -> None:
    env = {**os.environ, "WORKBENCH_HOME": str(workbench_home)}
    env.pop("HF_HUB_OFFLINE", None)  # the plugin itself must keep EngiBench off the network
    argument = json.dumps(ACCEPTANCE)
    completed = subprocess.run(
        [sys.executable, "-m", "workbench", "--headless", "tool", "optimize_design", argument],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    outcome = json.loads(completed.stdout)  # stdout is clean JSON: EngiBench's prints are muted
    assert outcome["ok"], outcome["error"]
    result = outcome["result"]
    assert result["final_c"] == pytest.approx(30.909, abs=0.01)
    assert result["optimization_info"]["steps"] == 60
    assert result["optimization_info"]["obj_values"][-1] == pytest.approx(30.909, abs=0.01)
    assert result["design_shape"] == [50, 100]
    assert np.load(result["save_path"]).shape == (50, 100)


def test_optimized_design_is_a_candidate_and_export_adds_watertight_evidence(
    context: Any,
) -> None:
    progress: list[JobProgress] = []
    context.bus.subscribe(JobProgress, progress.append)

    optimized = call(context, "optimize_design", ACCEPTANCE)
    assert optimized.ok, optimized.error
    result = optimized.result
    assert result["final_c"] == pytest.approx(30.909, abs=0.01)

    # every iteration streamed from the worker with its density field and objective
    frames = [e for e in progress if e.message == "iteration"]
    assert [e.data["iteration"] for e in frames] == list(range(60))
    assert frames[-1].data["objective"] == result["optimization_info"]["obj_values"][-1]
    assert np.asarray(frames[0].data["design"]).shape == (50, 100)

    ledger = context.ledger
    candidate = ledger.candidate(result["candidate_id"])
    assert candidate.subject == result["subject"]
    assert candidate.content["design_sha256"] == result["design_sha256"]
    assert candidate.content["conditions"]["volfrac"] == 0.4
    assert ledger.status(candidate=candidate, invariant="volume_fraction").status is (
        Status.SUPPORTED
    )
    assert ledger.status(candidate=candidate, invariant="single_component").status is (
        Status.SUPPORTED
    )
    assert ledger.status(candidate=candidate, invariant="watertight_export").status is Status.OPEN
    assert not ledger.readiness(candidate).ready

    exported = call(
        context,
        "convert_design_to_stl",
        {
            "npy_file_path": result["save_path"],
            "mirror_y": True,
            "scale_xy": 2.47,
            "scale_z": 17.9,
            "threshold": 0.58,
        },
    )
    assert exported.ok, exported.error
    stl = exported.result
    assert stl["is_watertight"] and stl["mirrored"] and stl["threshold"] == 0.58
    assert stl["candidate_id"] == candidate.id
    mesh = trimesh.load(stl["stl_path"])
    assert mesh.is_watertight and mesh.volume == pytest.approx(stl["volume_mm3"], rel=1e-6)
    evidence = [e for e in ledger.history(candidate) if e.invariant_name == "watertight_export"]
    assert len(evidence) == 1 and evidence[0].tool_call_id == exported.call_id
    assert ledger.readiness(candidate).ready

    # the workspace remembers the last design: simulate it by description
    simulated = call(context, "simulate_design", {"design_description": "last design"})
    assert simulated.ok, simulated.error
    assert simulated.result["c"] == pytest.approx(result["final_c"], rel=1e-12)
    kinds = {a.kind for a in context.store.artifacts()}
    assert {"topopt.design", "topopt.history", "stl"} <= kinds


def test_cancelled_optimisation_leaves_no_design(context: Any) -> None:
    started: list[str] = []
    first_iteration = threading.Event()
    context.bus.subscribe(JobStarted, lambda e: started.append(e.job_id))
    context.bus.subscribe(
        JobProgress, lambda e: first_iteration.set() if e.message == "iteration" else None
    )
    outcome: list[Any] = []
    runner = threading.Thread(
        target=lambda: outcome.append(
            call(context, "optimize_design", {**ACCEPTANCE, "problem_config": {**BEAM}})
        )
    )
    runner.start()
    assert first_iteration.wait(120)
    context.jobs.get(started[0]).cancel()
    runner.join(60)
    assert outcome and not outcome[0].ok
    assert "cancelled" in outcome[0].error.message
    assert context.store.artifacts("topopt.design") == []
    assert context.ledger.candidates() == []


@pytest.mark.parametrize(
    ("tool", "arguments", "field", "words"),
    [
        ("optimize_design", {"problem_type": "airfoil9d"}, "problem_type", "airfoil9d"),
        ("get_problem_details", {"problem_type": "bridge"}, "problem_type", "bridge"),
        (
            "optimize_design",
            {"problem_config": {"volfrac": math.nan}},
            "problem_config",
            "problem_config.volfrac",
        ),
        (
            "optimize_design",
            {"problem_config": {"volfrac": 1.4, "rmin": -1}},
            "problem_config",
            "problem_config.rmin",
        ),
        (
            "optimize_design",
            {"problem_type": "photonics2d", "problem_config": {"lambda1": 0}},
            "problem_config",
            "problem_config.lambda1",
        ),
        ("convert_design_to_stl", {"npy_file_path": "x.npy", "scale_xy": -1}, "scale_xy", ""),
        (
            "convert_design_to_stl",
            {"npy_file_path": "x.npy", "threshold": math.nan},
            "threshold",
            "",
        ),
    ],
)
def test_bad_arguments_name_the_field(
    context: Any, tool: str, arguments: dict, field: str, words: str
) -> None:
    outcome = call(context, tool, arguments)
    assert not outcome.ok
    assert outcome.error.kind == "invalid_arguments"
    problem = next(p for p in outcome.error.problems if p.field == field)
    assert words in problem.message


def outputs(context: Any) -> Path:
    """The workspace's topopt outputs, where relative file names land (resolved, as reported)."""
    folder = context.store.folder / "outputs" / "topopt"
    folder.mkdir(parents=True, exist_ok=True)
    return folder.resolve()


def test_missing_npy_is_a_clear_error(context: Any) -> None:
    missing = outputs(context) / "nothing_here.npy"
    for tool, arguments in [
        ("convert_design_to_stl", {"npy_file_path": str(missing)}),
        ("simulate_design", {"design_description": str(missing)}),
    ]:
        outcome = call(context, tool, arguments)
        assert outcome.error.kind == "failed"
        assert f"No design file at {missing}" in outcome.error.message


def test_design_of_the_wrong_shape_is_a_clear_error(context: Any) -> None:
    wrong = outputs(context) / "wrong.npy"
    np.save(wrong, np.full((100, 50), 0.4))
    outcome = call(context, "simulate_design", {"design_description": str(wrong)})
    assert outcome.error.kind == "failed"
    assert "[100, 50]" in outcome.error.message and "[50, 100]" in outcome.error.message


def test_threshold_that_leaves_no_material_is_a_clear_error(context: Any) -> None:
    faint = outputs(context) / "faint.npy"
    np.save(faint, np.full((50, 100), 0.3))
    outcome = call(context, "convert_design_to_stl", {"npy_file_path": str(faint)})
    assert outcome.error.kind == "failed"
    assert "threshold 0.5" in outcome.error.message
    assert context.store.artifacts("stl") == []


def test_last_design_before_any_run_is_a_clear_error(context: Any) -> None:
    outcome = call(context, "simulate_design", {"design_description": "the optimized design"})
    assert outcome.error.kind == "failed"
    assert "optimize_design first" in outcome.error.hint


def test_details_render_and_clarification(context: Any) -> None:
    details = call(context, "get_problem_details", {"problem_type": "beams2d"})
    assert details.ok, details.error
    assert details.result["design_space"]["shape"] == [50, 100]
    assert details.result["objectives"] == [["c", "minimize"]]
    assert details.result["conditions_keys"] == [
        "volfrac",
        "rmin",
        "forcedist",
        "overhang_constraint",
    ]
    created = call(context, "create_problem", {"problem_type": "photonics2d", "seed": 3})
    assert created.ok and created.result["seed"] == 3
    assert created.result["conditions"]["lambda1"] == 1.5

    rendered = call(context, "render_design", {"design_description": "initial", "seed": 1})
    assert rendered.ok, rendered.error
    assert Path(rendered.result["save_path"]).read_bytes()[:4] == b"\x89PNG"
    assert np.load(rendered.result["npy_path"]) == pytest.approx(np.full((50, 100), 0.35))

    asked = call(context, "ask_human_for_clarification", {"clarification_request": "volfrac?"})
    assert asked.ok and asked.result["question"] == "volfrac?"


def test_photonics_optimisation_through_the_tool(context: Any) -> None:
    small = {"num_elems_x": 70, "num_elems_y": 105, "num_optimization_steps": 2}
    outcome = call(
        context,
        "optimize_design",
        {"problem_type": "photonics2d", "problem_config": small, "seed": 1},
    )
    assert outcome.ok, outcome.error
    result = outcome.result
    assert result["design_shape"] == [70, 105]
    assert {"initial_total_overlap", "final_total_overlap"} <= set(result)
    assert set(np.unique(np.load(result["save_path"]))) <= {0.0, 1.0}
    candidate = context.ledger.candidate(result["candidate_id"])
    assert candidate.subject.startswith("photonics2d:")
    assert "volume_fraction" not in result["invariants"]


def test_export_of_a_description_that_names_no_design_is_refused(context: Any) -> None:
    """simulate/render treat an unknown description as a random design (as the reference does);
    an export must not: a made-up STL would pass for the agent's work."""
    outcome = call(context, "convert_design_to_stl", {"npy_file_path": "the beam"})
    assert outcome.error.kind == "failed"
    assert "'the beam' names no design" in outcome.error.message
    assert "save_path" in outcome.error.hint
    assert context.store.artifacts("stl") == []


# -- file arguments: inside the workspace, elsewhere only confirmed, never out through a link ---
def beam_npy(context: Any) -> Path:
    design = np.zeros((50, 100))
    design[:, :40] = 1.0
    path = outputs(context) / "beam.npy"
    np.save(path, design)
    return path


def test_an_export_outside_the_workspace_needs_a_confirmation_showing_the_path(
    context: Any, tmp_path: Path
) -> None:
    stl = tmp_path / "x.stl"
    arguments = {"npy_file_path": str(beam_npy(context)), "stl_file_path": str(stl)}
    refused = call(context, "convert_design_to_stl", arguments)
    assert refused.error.kind == "confirmation_required"
    assert str(stl.resolve()) in refused.error.message and str(stl.resolve()) in refused.error.paths
    assert list(tmp_path.glob("x.stl*")) == [] and context.store.artifacts("stl") == []

    confirmed = context.registry.call(
        "convert_design_to_stl", arguments, caller="test", confirmed=True
    )
    assert confirmed.ok, confirmed.error
    assert trimesh.load(stl).is_watertight


def test_reading_a_file_outside_needs_a_confirmation_and_reads_nothing(
    context: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "user"
    home.mkdir()
    (home / ".bashrc").write_text("export SECRET=1\n")
    monkeypatch.setenv("HOME", str(home))
    for tool, field in [
        ("simulate_design", "design_description"),
        ("render_design", "design_description"),
        ("convert_design_to_stl", "npy_file_path"),
    ]:
        outcome = call(context, tool, {field: "~/.bashrc"})
        assert outcome.error.kind == "confirmation_required", tool
        assert outcome.error.paths[0] == str((home / ".bashrc").resolve())
    assert list(outputs(context).iterdir()) == []  # no render, no STL, no .npy


def test_climbing_out_of_the_workspace_is_refused(context: Any) -> None:
    above = context.store.folder.parent  # what ../../../ from the outputs folder reaches
    np.save(above / "x.npy", np.full((50, 100), 0.4))  # a readable design, were '..' followed
    source = str(beam_npy(context))
    for tool, arguments in [
        ("convert_design_to_stl", {"npy_file_path": source, "stl_file_path": "../../../x.stl"}),
        ("render_design", {"design_description": source, "save_path": "../../../x.png"}),
        ("simulate_design", {"design_description": "../../../x.npy"}),
    ]:
        outcome = context.registry.call(tool, arguments, caller="test", confirmed=True)
        assert outcome.error.kind == "failed" and "'..'" in outcome.error.message, tool
    assert [p.name for p in above.glob("x.*")] == ["x.npy"]  # nothing written there


def test_a_link_that_leads_out_is_refused_even_when_confirmed(context: Any, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("original")
    os.symlink(victim, outputs(context) / "part.stl")
    os.symlink(tmp_path, outputs(context) / "door")
    np.save(tmp_path / "outside.npy", np.full((50, 100), 0.4))
    source = str(beam_npy(context))
    for tool, arguments in [
        ("convert_design_to_stl", {"npy_file_path": source, "stl_file_path": "part.stl"}),
        ("convert_design_to_stl", {"npy_file_path": source, "stl_file_path": "door/new.stl"}),
        ("render_design", {"design_description": source, "save_path": "door/new.png"}),
        ("simulate_design", {"design_description": "door/outside.npy"}),
    ]:
        outcome = context.registry.call(tool, arguments, caller="test", confirmed=True)
        assert outcome.error.kind == "failed" and "symbolic link" in outcome.error.message, tool
    assert victim.read_text() == "original"
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".txt") == [
        "home",
        "outside.npy",
    ]


def test_an_allowed_folder_needs_no_confirmation(context: Any, tmp_path: Path) -> None:
    prints = tmp_path / "prints"
    prints.mkdir()
    context.settings.allowed_folders = [str(prints)]
    arguments = {"npy_file_path": str(beam_npy(context)), "stl_file_path": str(prints / "b.stl")}
    outcome = call(context, "convert_design_to_stl", arguments)
    assert outcome.ok, outcome.error
    assert (prints / "b.stl").is_file()


def test_headless_yes_confirms_a_path_outside(
    context: Any, workbench_home: Path, tmp_path: Path
) -> None:
    stl = tmp_path / "cli.stl"
    arguments = json.dumps({"npy_file_path": str(beam_npy(context)), "stl_file_path": str(stl)})
    command = [sys.executable, "-m", "workbench", "--headless", "tool", "convert_design_to_stl"]
    env = {**os.environ, "WORKBENCH_HOME": str(workbench_home)}

    def run(*extra: str) -> dict[str, Any]:
        completed = subprocess.run(
            [*command, arguments, *extra], capture_output=True, text=True, env=env, timeout=120
        )
        return json.loads(completed.stdout)

    refused = run()
    assert refused["error"]["kind"] == "confirmation_required" and not stl.exists()
    assert str(stl.resolve()) in refused["error"]["message"]
    assert run("--yes")["ok"] and stl.is_file()


def test_results_name_the_exact_design_they_worked_on(context: Any) -> None:
    """simulate, render and export report design_sha256 of the field they used, so a benchmark
    can tell the optimised design from "initial", a random field or some other file."""
    from workbench_plugins.topopt.engine import design_sha256

    design = np.zeros((50, 100))
    design[:, :40] = 1.0  # mean 0.4
    path = context.store.folder / "outputs" / "own.npy"  # inside the workspace
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, design)
    own = design_sha256(design)
    simulated = call(context, "simulate_design", {"design_description": str(path)})
    rendered = call(context, "render_design", {"design_description": str(path)})
    exported = call(context, "convert_design_to_stl", {"npy_file_path": str(path)})
    for outcome in (simulated, rendered, exported):
        assert outcome.ok, outcome.error
        assert outcome.result["design_sha256"] == own
    initial = call(context, "render_design", {"design_description": "initial"})
    assert initial.result["design_sha256"] == design_sha256(np.full((50, 100), 0.35))
    random = call(context, "simulate_design", {"design_description": "random", "seed": 4})
    assert random.result["design_sha256"] not in (own, initial.result["design_sha256"])
    # the reference's two never-computed STL flags are not reported
    assert not {"watertight_check_available", "mesh_repaired"} & set(exported.result)


def test_design_valid_is_engibenchs_own_constraint_check(context: Any) -> None:
    """Not a constant: a Beams2D design whose mean density misses volfrac by more than 0.01
    violates EngiBench's volume_fraction_bound."""
    design = np.zeros((50, 100))
    design[:, :40] = 1.0  # mean 0.4
    path = context.store.folder / "outputs" / "own.npy"
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, design)
    for volfrac, valid in ((0.4, True), (0.405, True), (0.3, False)):
        arguments = {"design_description": str(path), "problem_config": {"volfrac": volfrac}}
        outcome = call(context, "simulate_design", arguments)
        assert outcome.ok, outcome.error
        assert outcome.result["design_valid"] is valid, volfrac
        violations = outcome.result["constraint_violations"]
        assert bool(violations) is not valid
        assert all(v.startswith("volume_fraction_bound") for v in violations)
    photonics = call(context, "simulate_design", {"problem_type": "photonics2d", "seed": 1})
    assert photonics.ok and photonics.result["design_valid"] is True  # it has no constraints


def test_candidates_record_the_installed_engibench(
    context: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib.metadata import version

    from workbench_plugins.topopt import candidates, engine

    config = engine.parse_config("beams2d", {"volfrac": 0.4})
    design = np.full((50, 100), 0.4)

    def propose(seed: int) -> Any:
        return candidates.propose_design(
            context.ledger,
            problem_type="beams2d",
            config=config,
            seed=seed,
            design=design,
            artifact_sha256="0" * 64,
            tool_call_id=call(context, "get_problem_details", {}).call_id,
        )[0]

    assert propose(0).content["engine"] == f"engibench {version('engibench')}"
    monkeypatch.setattr(engine, "engibench_version", lambda: "9.9.9")  # an upgrade
    assert propose(1).content["engine"] == "engibench 9.9.9"
