"""The loader reads the public task format (the seven public sample shapes), refuses bad files
naming the field, reads submissions (JSON, JSONL with aliases) and task packages."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.modelica.tiny_packages import (
    GENERATION_CONTRACT,
    REPAIR_CONTRACT,
    TUNING_TASK,
    public,
    write_json,
    write_packages,
)
from workbench_plugins.modelica.task_packages.contract import ParameterAnswer, SettlingTimeMetric
from workbench_plugins.modelica.task_packages.packages import (
    PackageError,
    load_package,
    load_packages,
    scan_packages,
)
from workbench_plugins.modelica.task_packages.submissions import (
    SubmissionError,
    main_model_text,
    read_submission,
    read_submissions_jsonl,
)
from workbench_plugins.modelica.task_packages.task_format import (
    TaskFormatError,
    load_public_task,
    workspace_files,
)


def _model(name: str) -> str:
    return (
        f"model {name}\n  Real x(start = 1, fixed = true);\nequation\n  der(x) = -x;\nend {name};\n"
    )


def _repair(number: int, difficulty: str, name: str) -> dict[str, Any]:
    task = public(
        f"demo_repair_00{number}", "model_repair", name, 1.0, 20, initial_model=_model(name)
    )
    return {**task, "split": "public_demo", "difficulty": difficulty}


# the seven public samples' shapes (benchmark/samples/ of the public repository, v0.2 preview)
SAMPLES: dict[str, dict[str, Any]] = {
    "demo_repair_001": _repair(1, "easy", "ThermalZone_v0"),
    "demo_repair_002": _repair(2, "easy", "ExciterAVR_v0"),
    "demo_repair_003": _repair(3, "medium", "SyncMachineSimplified_v0"),
    "demo_repair_004": _repair(4, "medium", "HydroTurbineGov_v0"),
    "demo_generation_001": {
        **public(
            "demo_generation_001",
            "model_generation",
            "WorkflowV02_GenRCCharge",
            0.5,
            250,
            requirements=["Build an RC charging transient.", "Expose vc."],
        ),
        "split": "public_demo",
    },
    "demo_generation_002": {
        **public(
            "demo_generation_002",
            "model_generation",
            "WorkflowV02_MediumGenThermalChain",
            900.0,
            900,
            requirements=["Build a chain of thermal masses."],
        ),
        "split": "public_demo",
        "difficulty": "medium",
    },
    "demo_tuning_001": {**TUNING_TASK, "task_id": "demo_tuning_001", "split": "public_demo"},
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_public_sample_shape_loads_from_a_json_file(name: str, tmp_path: Path) -> None:
    written = write_json(tmp_path / f"{name}.json", SAMPLES[name])
    task = load_public_task(written)
    assert task.task_id == name
    assert task.public_json() == SAMPLES[name]  # nothing added, nothing lost
    assert task.stop_time == SAMPLES[name]["verification"]["simulate"]["stop_time"]
    assert task.profile == name.split("_")[1]


def _refused(data: dict[str, Any]) -> str:
    with pytest.raises(TaskFormatError) as refused:
        load_public_task(data)
    return str(refused.value)


def test_bad_tasks_are_refused_naming_the_field() -> None:
    repair = SAMPLES["demo_repair_001"]
    assert "hint: is not a property" in _refused({**repair, "hint": "use R=2"})
    assert "needs initial_model" in _refused(
        {k: v for k, v in repair.items() if k != "initial_model"}
    )
    generation = SAMPLES["demo_generation_001"]
    assert "must not carry initial_model" in _refused({**generation, "initial_model": "model X"})
    broken = copy.deepcopy(repair)
    broken["verification"]["simulate"]["intervals"] = 0
    assert "verification.simulate.intervals" in _refused(broken)
    assert "benchmark:" in _refused({**repair, "benchmark": "Some Other Benchmark"})
    assert "acceptance" in _refused({**repair, "acceptance": []})
    assert "task_type" in _refused({**repair, "task_type": "model_painting"})
    tuning = SAMPLES["demo_tuning_001"]
    stray = {**tuning, "parameter_ranges": {"L": {"min": 0.1, "max": 1.0}}}
    assert "parameter_ranges names L" in _refused(stray)
    inverted = {**tuning, "parameter_ranges": {"R": {"min": 5.0, "max": 0.5}}}
    assert "parameter_ranges.R" in _refused(inverted)


def test_a_file_that_is_not_json_is_refused_plainly(tmp_path: Path) -> None:
    path = tmp_path / "task.json"
    path.write_text("{task_id: 1", encoding="utf-8")
    with pytest.raises(TaskFormatError, match="not valid JSON"):
        load_public_task(path)
    with pytest.raises(TaskFormatError, match="No task file"):
        load_public_task(tmp_path / "missing.json")


def test_workspace_files_hold_the_initial_model_and_the_library(tmp_path: Path) -> None:
    library = tmp_path / "library" / "Lib" / "package.mo"
    library.parent.mkdir(parents=True)
    library.write_text("package Lib end Lib;", encoding="utf-8")
    task = load_public_task(SAMPLES["demo_tuning_001"])
    files = workspace_files(task, [library], tmp_path / "library")
    assert files == {"RL.mo": task.initial_model, "library/Lib/package.mo": "package Lib end Lib;"}


def test_submission_json_is_read_with_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "submission.json"
    raw = b'{"final_model": "model A end A;", "model_name": "A", "files": {}}'
    path.write_bytes(raw)
    submission = read_submission(path)
    assert submission.final_model == "model A end A;" and submission.parameter_set is None
    assert submission.sha256 == hashlib.sha256(raw).hexdigest()
    path.write_text('{"parameter_set": {"R": "high"}}', encoding="utf-8")
    with pytest.raises(SubmissionError, match=r"parameter_set\.R"):
        read_submission(path)


def test_jsonl_predictions_accept_the_public_aliases(tmp_path: Path) -> None:
    lines = [
        {"case_id": "a", "model_text": "model A end A;"},
        {"id": "b", "final_model": "model B end B;"},
        {"task_id": "c", "parameter_set": {"R": 2.5}, "final_report": "tuned"},
    ]
    path = tmp_path / "predictions.jsonl"
    text = "\n".join(json.dumps(line) for line in lines) + "\n\n"
    path.write_text(text, encoding="utf-8")
    found = read_submissions_jsonl(path)
    assert sorted(found) == ["a", "b", "c"]
    assert found["a"].final_model == "model A end A;"
    assert found["b"].final_model == "model B end B;"
    assert found["c"].parameter_set == {"R": 2.5} and found["c"].final_report == "tuned"
    first_line = json.dumps(lines[0]).encode()
    assert found["a"].sha256 == hashlib.sha256(first_line).hexdigest()
    path.write_text(text + json.dumps({"model_text": "model D end D;"}), encoding="utf-8")
    with pytest.raises(SubmissionError, match="line 5 names no task"):
        read_submissions_jsonl(path)
    path.write_text(text + json.dumps(lines[1]), encoding="utf-8")
    with pytest.raises(SubmissionError, match="repeats task 'b'"):
        read_submissions_jsonl(path)


def test_the_main_model_is_the_file_that_declares_it() -> None:
    files = {
        "library/Lib.mo": "package Lib model Cooling end Cooling; end Lib;",
        "notes.mo": "// Cooling is the model to repair",
        "Cooling.mo": "model Cooling end Cooling;",
    }
    assert main_model_text(files, "Cooling") == "model Cooling end Cooling;"
    assert main_model_text({"notes.mo": files["notes.mo"]}, "Cooling") is None


def test_packages_load_with_contract_and_library(tmp_path: Path) -> None:
    root = write_packages(tmp_path)
    packages = {package.task_id: package for package in load_packages(root)}
    assert sorted(packages) == sorted(
        ["wb_generation_control_01", "wb_repair_thermal_01", "wb_tuning_electrical_01"]
    )
    generation = packages["wb_generation_control_01"]
    assert generation.library == [root / "library" / "WBTest.mo"]
    assert isinstance(generation.contract.metrics[1], SettlingTimeMetric)
    tuning = load_package("wb_tuning_electrical_01", root)
    assert isinstance(tuning.contract.known_valid, ParameterAnswer)
    assert [m.type for m in tuning.target_metrics()] == ["value_at_time"] * 2 + ["monotonic"]
    with pytest.raises(PackageError, match=r"No task .nope.*wb_repair_thermal_01"):
        load_package("nope", root)


def test_package_mistakes_are_found_at_load_naming_the_task(tmp_path: Path) -> None:
    root = write_packages(tmp_path)
    (root / "contracts" / "wb_tuning_electrical_01.json").unlink()
    wrong_default = copy.deepcopy(REPAIR_CONTRACT)
    wrong_default["scenarios"][0]["stop_time"] = 10.0
    write_json(root / "contracts" / "wb_repair_thermal_01.json", wrong_default)
    no_variants = {
        **GENERATION_CONTRACT,
        "off_target": [],
        "known_valid": {"parameter_set": {"T": 1}},
    }
    write_json(root / "contracts" / "wb_generation_control_01.json", no_variants)
    packages, problems = scan_packages(root)
    assert packages == []
    messages = {problem.task_id: problem.message for problem in problems}
    assert "no contract at" in messages["wb_tuning_electrical_01"]
    assert "scenario 'default' runs to 10 s" in messages["wb_repair_thermal_01"]
    generation = messages["wb_generation_control_01"]
    assert "known_valid must be a final_model" in generation
    assert "needs at least one off_target" in generation
    with pytest.raises(PackageError, match="Task wb_repair_thermal_01"):
        load_packages(root)


def test_a_contract_metric_of_unknown_kind_or_scenario_is_refused(tmp_path: Path) -> None:
    root = write_packages(tmp_path, ("wb_repair_thermal_01",))
    contract = copy.deepcopy(REPAIR_CONTRACT)
    contract["metrics"].append({"type": "entropy", "variable": "T"})
    write_json(root / "contracts" / "wb_repair_thermal_01.json", contract)
    with pytest.raises(PackageError, match=r"metrics\.4"):
        load_packages(root)
    contract["metrics"][-1] = {"type": "monotonic", "variable": "T", "scenario": "cold"}
    write_json(root / "contracts" / "wb_repair_thermal_01.json", contract)
    with pytest.raises(PackageError, match="names scenario 'cold'"):
        load_packages(root)
