"""Issue 27 (Modelica): the behaviour gate fails closed. A contract that measures nothing cannot
vouch for a submission's behaviour, so the known-valid answer of a package whose contract lost
its metrics does not pass (on rumoca, with the tiny packages)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.modelica.tiny_packages import write_packages
from workbench_plugins.modelica.evaluator import evaluate
from workbench_plugins.modelica.task_packages.packages import TaskPackage, load_packages
from workbench_plugins.modelica.task_packages.submissions import SubmissionFile


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TaskPackage]:
    root = write_packages(tmp_path_factory.mktemp("packages"))
    return {package.task_id: package for package in load_packages(root)}


def without_metrics(package: TaskPackage) -> TaskPackage:
    return dataclasses.replace(
        package, contract=package.contract.model_copy(update={"metrics": []})
    )


@pytest.mark.parametrize("task_id", ["wb_repair_thermal_01", "wb_generation_control_01"])
def test_a_contract_without_metrics_passes_nothing(
    packages: dict[str, TaskPackage], task_id: str, tmp_path: Path
) -> None:
    package = packages[task_id]
    answer = SubmissionFile.model_validate(package.contract.known_valid.model_dump())
    # the same answer with the metrics in place passes: only the missing metrics fail it
    assert evaluate(package, answer, backend="rumoca", work_dir=tmp_path / "full").passed
    bare = without_metrics(package)
    assert bare.target_metrics() == []
    verdict = evaluate(bare, answer, backend="rumoca", work_dir=tmp_path / "bare")
    assert not verdict.passed
    assert verdict.failed_stage == "behaviour" and verdict.executable
    assert "no behaviour metrics" in verdict.gates["behaviour"].detail
    assert verdict.explain().startswith(f"{task_id}: FAIL at behaviour")


def test_public_targets_alone_still_judge_a_tuning_task(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    """A tuning task's public targets are metrics too: without private ones it is judged."""
    package = without_metrics(packages["wb_tuning_electrical_01"])
    assert package.target_metrics()
    answer = SubmissionFile.model_validate(package.contract.known_valid.model_dump())
    verdict = evaluate(package, answer, backend="rumoca", work_dir=tmp_path / "work")
    assert verdict.passed, verdict.explain()
    assert len(verdict.metrics) == len(package.target_metrics())
