"""The committed Modelica benchmark task set: counts, public format, secrecy, and that it runs.

Everything here reads the JSON the product reads (benchmarks/modelica/tasks, contracts) and
simulates on the real rumoca backend.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from workbench_plugins.modelica.backend_base import ModelSource, SimulationSettings
from workbench_plugins.modelica.backends import backend_named

ROOT = Path(__file__).resolve().parents[2] / "benchmarks" / "modelica"
TASKS = sorted((ROOT / "tasks").glob("*.json"))
COMMON = {
    "task_id", "benchmark", "benchmark_version", "split", "task_type", "difficulty",
    "model_name", "workflow_goal", "verification", "acceptance",
}  # fmt: skip
BY_TYPE = {
    "model_repair": ({"initial_model"}, set()),
    "model_generation": ({"requirements"}, set()),
    "model_tuning": ({"initial_model", "tunable_parameters", "target_metrics"},
                     {"parameter_ranges"}),
}  # fmt: skip
WORKFLOW = {"model_repair": "repair", "model_generation": "generation", "model_tuning": "tuning"}


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _pairs() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(_load(path), _load(ROOT / "contracts" / path.name)) for path in TASKS]


def test_counts_per_workflow_domain_and_difficulty() -> None:
    pairs = _pairs()
    workflows = Counter(task["task_type"] for task, _ in pairs)
    assert workflows["model_repair"] >= 12
    assert workflows["model_generation"] >= 6
    assert workflows["model_tuning"] >= 6
    domains = {contract["domain"] for _, contract in pairs}
    assert len(domains) >= 3 and domains <= {"electrical", "mechanical", "thermal", "control"}
    for workflow in BY_TYPE:
        levels = {task["difficulty"] for task, _ in pairs if task["task_type"] == workflow}
        assert levels == {"easy", "medium", "hard"}, workflow
    for task, contract in pairs:
        assert task["task_id"] == contract["task_id"]
        prefix = f"wb_{WORKFLOW[task['task_type']]}_{contract['domain']}_"
        assert task["task_id"].startswith(prefix) and task["task_id"][len(prefix) :].isdigit()


def test_every_task_json_has_exactly_the_public_properties() -> None:
    assert TASKS, "no task JSON under benchmarks/modelica/tasks"
    for path in TASKS:
        task = _load(path)
        required, optional = BY_TYPE[task["task_type"]]
        keys = set(task)
        assert COMMON | required <= keys <= COMMON | required | optional, path.name
        assert path.stem == task["task_id"]
        assert task["benchmark"] == "Modelica Agent Workflow Benchmark"
        assert task["benchmark_version"] == "v0.2-preview"
        assert task["split"] == "hidden_official_v0.2"
        assert task["difficulty"] in {"easy", "medium", "hard"}
        verification = task["verification"]
        assert verification["tool"] == "OpenModelica" and verification["check_model"] is True
        assert verification["simulate"]["stop_time"] > 0
        assert isinstance(verification["simulate"]["intervals"], int)
        assert verification["simulate"]["intervals"] >= 1
        assert task["acceptance"] and all(isinstance(a, str) for a in task["acceptance"])
        if "initial_model" in task:
            assert f"model {task['model_name']}" in task["initial_model"]
        if task["task_type"] == "model_tuning":
            assert set(task["parameter_ranges"]) == set(task["tunable_parameters"])
            kinds = {m["type"] for m in task["target_metrics"]}
            assert kinds <= {"value_at_time", "monotonic"}


def test_no_contract_text_appears_in_any_task_json() -> None:
    pairs = _pairs()
    public_text = "\n".join(path.read_text(encoding="utf-8") for path in TASKS)
    for task, contract in pairs:
        known = contract["known_valid"]
        if "final_model" in known:
            assert json.dumps(known["final_model"])[1:-1] not in public_text, task["task_id"]
        for off in contract["off_target"]:
            text = off["submission"].get("final_model")
            if text:
                assert json.dumps(text)[1:-1] not in public_text, (task["task_id"], off["name"])
        assert not set(task) & {"domain", "metrics", "scenarios", "known_valid", "off_target"}


def test_contracts_are_complete() -> None:
    for task, contract in _pairs():
        names = [s["name"] for s in contract["scenarios"]]
        assert "default" in names
        if task["difficulty"] != "easy":
            assert len(names) >= 2, f"{task['task_id']} needs a private extra scenario"
        assert contract["metrics"] and {m["scenario"] for m in contract["metrics"]} <= set(names)
        is_repair = task["task_type"] == "model_repair"
        assert (contract["intended_failure_stage"] in {"check", "simulate"}) is is_repair
        if not is_repair:
            assert contract["off_target"], task["task_id"]
        if task["task_type"] == "model_tuning":
            assert set(contract["known_valid"]["parameter_set"]) == set(task["tunable_parameters"])
    stages = Counter(c["intended_failure_stage"] for _, c in _pairs())
    assert stages["check"] >= 4 and stages["simulate"] >= 4


def _run(model_text: str, model: str, task: dict[str, Any], parameters: dict[str, float]) -> Any:
    backend = backend_named("rumoca")
    library = sorted((ROOT / "library").glob("*.mo"))
    with tempfile.TemporaryDirectory(prefix="wb-taskset-") as folder:
        path = Path(folder) / f"{model}.mo"
        path.write_text(model_text, encoding="utf-8")
        source = ModelSource(files=[path, *library], model=model)
        checked = backend.check(source)
        if not checked.ok:
            return checked
        simulate = task["verification"]["simulate"]
        settings = SimulationSettings(
            stop_time=simulate["stop_time"],
            intervals=simulate["intervals"],
            parameters=parameters,
        )
        return backend.simulate(source, settings)


def test_each_known_valid_simulates_on_rumoca_and_each_repair_input_fails_where_intended() -> None:
    for task, contract in _pairs():
        known = contract["known_valid"]
        model_text = known.get("final_model") or task["initial_model"]
        result = _run(model_text, task["model_name"], task, known.get("parameter_set", {}))
        assert result.ok, (task["task_id"], result.explain() if hasattr(result, "explain") else "")
        assert result.elapsed_s < 2.0, task["task_id"]
        for variable in contract["interface"]["variables"]:
            assert variable in result.series, (task["task_id"], variable)
        if task["task_type"] == "model_repair":
            broken = _run(task["initial_model"], task["model_name"], task, {})
            stage = contract["intended_failure_stage"]
            failed_at = "check" if not hasattr(broken, "series") else "simulate"
            assert not broken.ok and failed_at == stage, task["task_id"]


def test_built_json_is_current_and_verified_by_the_build_script() -> None:
    """Rebuild in --check mode: every reference/known-valid meets its metrics, every off-target
    misses one, tuning start values miss a public target, and the committed JSON is current."""
    sys.path.insert(0, str(ROOT))
    try:
        import build_tasks
    finally:
        sys.path.remove(str(ROOT))
    assert build_tasks.main(["--check"]) == 0


def test_off_targets_simulate_but_miss_a_private_metric() -> None:
    sys.path.insert(0, str(ROOT))
    try:
        from authoring.compute import meets, run_model
    finally:
        sys.path.remove(str(ROOT))
    for task, contract in _pairs():
        stop = task["verification"]["simulate"]
        for off in contract["off_target"]:
            submission = off["submission"]
            text = submission.get("final_model") or task["initial_model"]
            missed = []
            for scenario in contract["scenarios"]:
                parameters = {**submission.get("parameter_set", {}), **scenario["parameters"]}
                run = run_model(
                    text, task["model_name"], stop["stop_time"], stop["intervals"], parameters
                )
                assert run.failed_stage == "", (task["task_id"], off["name"], run.message)
                missed += [
                    m for m in contract["metrics"]
                    if m["scenario"] == scenario["name"] and not meets(m, run)[0]
                ]  # fmt: skip
            assert missed, (task["task_id"], off["name"])


def test_every_package_loads_through_the_product_loader() -> None:
    from workbench_plugins.modelica.task_packages.packages import (
        consistency_problems,
        load_packages,
    )

    packages = load_packages(ROOT)
    assert sorted(p.task.task_id for p in packages) == sorted(path.stem for path in TASKS)
    for package in packages:
        assert consistency_problems(package) == [], package.task.task_id
        assert [path.name for path in package.library] == ["WbLib.mo"]
