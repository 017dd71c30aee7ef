"""`workbench --headless modelica validate` from a shell, as CI runs it: exit 0 iff every
evaluator-validation check holds, one line per check naming the task and the stage."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

from tests.modelica.tiny_packages import (
    GENERATION_CONTRACT,
    REPAIR_TASK,
    cooling,
    lag,
    write_json,
    write_packages,
)
from workbench_plugins.modelica.evaluator import evaluate
from workbench_plugins.modelica.task_packages.packages import load_package
from workbench_plugins.modelica.task_packages.submissions import read_submission


def validate(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "--headless",
            "modelica",
            "validate",
            "--root",
            str(root),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_validate_passes_on_sound_packages(tmp_path: Path) -> None:
    done = validate(write_packages(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    checks = [line for line in lines if line.startswith(("ok  ", "FAIL"))]
    assert checks and all(line.startswith("ok  ") for line in checks)
    repair_input = next(line for line in lines if "the initial model fails at" in line)
    assert repair_input.startswith("ok   wb_repair_thermal_01: the initial model fails at check")
    assert "failed at check" in repair_input and "Tamb" in repair_input  # says why
    off_target = "ok   wb_generation_control_01: off-target 'slow' fails the behaviour gate"
    assert any(line.startswith(off_target) and "failed at behaviour" in line for line in lines)
    assert "ok   wb_tuning_electrical_01: the known-valid answer passes" in lines
    assert "ok   wb_tuning_electrical_01: the known-valid answer passes the submit gates" in lines
    assert lines[-1].startswith("modelica validate on rumoca: 11/11 checks hold over 3 task(s)")


def test_validate_fails_naming_the_task_and_the_stage(tmp_path: Path) -> None:
    root = write_packages(tmp_path)
    # a repair input that is not faulty at all, and an "off-target" variant that is right
    write_json(
        root / "tasks" / "wb_repair_thermal_01.json", {**REPAIR_TASK, "initial_model": cooling()}
    )
    contract = copy.deepcopy(GENERATION_CONTRACT)
    contract["off_target"] = [{"name": "not-wrong", "submission": {"final_model": lag()}}]
    write_json(root / "contracts" / "wb_generation_control_01.json", contract)
    (root / "contracts" / "wb_tuning_electrical_01.json").unlink()
    done = validate(root)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert len(failed) == 3, done.stdout
    generation, repair, tuning = sorted(failed)
    assert repair.startswith("FAIL wb_repair_thermal_01: the initial model fails at check")
    assert "passed every gate" in repair
    assert generation.startswith(
        "FAIL wb_generation_control_01: off-target 'not-wrong' fails the behaviour gate"
    )
    assert (
        tuning.startswith("FAIL wb_tuning_electrical_01: package loads") and "no contract" in tuning
    )
    assert "3 FAILED" in done.stdout.splitlines()[-1]


def test_validate_says_plainly_when_there_are_no_packages(tmp_path: Path) -> None:
    done = validate(tmp_path / "empty")
    assert done.returncode == 1
    assert "No task files in" in done.stdout and "--root" in done.stdout


def run_task(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", "--headless", "modelica", "run", *args],
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_run_drives_a_public_task_file_with_a_scripted_model(tmp_path: Path) -> None:
    """The public task JSON written here loads and runs end to end (plain loop, scripted model
    through the real runtime); the evaluator then passes the submission it wrote."""
    root = write_packages(tmp_path / "benchmark", ("wb_repair_thermal_01",))
    script = write_json(
        tmp_path / "script.json",
        [
            {
                "tool_calls": [
                    {"name": "write_file", "args": {"path": "Cooling.mo", "text": cooling()}}
                ],
                "usage": {"input_tokens": 300, "output_tokens": 40},
            },
            {"content": "Tamb is Ta.", "usage": {"input_tokens": 350, "output_tokens": 5}},
        ],
    )
    out = tmp_path / "out"
    task_file = root / "tasks" / "wb_repair_thermal_01.json"
    done = run_task(
        str(task_file), "--model", f"scripted:{script}", "--out", str(out), "--mode", "plain"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("wb_repair_thermal_01 (plain, scripted:")
    assert "submitted" in done.stdout.splitlines()[0]
    assert f"submission: {out / 'submission.json'}" in done.stdout
    assert "logical 695" in done.stdout  # the script's real usage, summed over both calls
    progress = [line for line in done.stderr.splitlines() if line.startswith("turn ")]
    assert progress and progress[0].startswith("turn 1/100, "), done.stderr  # one per turn
    package = load_package("wb_repair_thermal_01", root)
    submission = read_submission(out / "submission.json")
    verdict = evaluate(package, submission, work_dir=tmp_path / "evaluation")
    assert verdict.passed, verdict.explain()


def test_run_refuses_a_malformed_task_file_plainly(tmp_path: Path) -> None:
    bad = write_json(tmp_path / "task.json", {**REPAIR_TASK, "hint": "Tamb is Ta"})
    done = run_task(str(bad), "--model", "scripted:none.json", "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert "hint: is not a property of the format; remove it" in done.stderr
    assert "Traceback" not in done.stderr
