"""The evaluator on rumoca: each gate (I, M, C, S, B) fails for a crafted submission and the
known-valid answers pass; the warning policy; the verdict bound to the submission's bytes; and
the public subset that submit may tell an agent."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.modelica.tiny_packages import cooling, lag, write_packages
from workbench_plugins.modelica.backend_base import (
    Backend,
    CheckResult,
    Diagnostic,
    ModelSource,
    SimulationResult,
    SimulationSettings,
)
from workbench_plugins.modelica.evaluator import (
    Verdict,
    evaluate,
    evaluate_missing,
    public_problems,
)
from workbench_plugins.modelica.evaluator.gates import simulate_gate
from workbench_plugins.modelica.evaluator.public import task_view
from workbench_plugins.modelica.task_packages.packages import TaskPackage, load_packages
from workbench_plugins.modelica.task_packages.submissions import SubmissionFile, read_submission

REPAIR, GENERATION, TUNING = (
    "wb_repair_thermal_01",
    "wb_generation_control_01",
    "wb_tuning_electrical_01",
)


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TaskPackage]:
    root = write_packages(tmp_path_factory.mktemp("packages"))
    return {package.task_id: package for package in load_packages(root)}


def judge(package: TaskPackage, tmp_path: Path, **submitted: object) -> Verdict:
    submission = SubmissionFile.model_validate(submitted)
    return evaluate(package, submission, backend="rumoca", work_dir=tmp_path / "work")


@pytest.mark.parametrize("task_id", [REPAIR, GENERATION, TUNING])
def test_the_known_valid_answer_passes_every_gate(
    packages: dict[str, TaskPackage], task_id: str, tmp_path: Path
) -> None:
    package = packages[task_id]
    answer = package.contract.known_valid.model_dump()
    verdict = judge(package, tmp_path, **answer)
    assert verdict.passed and verdict.failed_stage == "" and verdict.executable, verdict.explain()
    assert list(verdict.gates) == ["interface", "constraints", "check", "simulate", "behaviour"]
    expected = len(package.contract.metrics) + len(package.target_metrics())
    assert len(verdict.metrics) == expected and all(m.passed for m in verdict.metrics)


def test_interface_fails_for_a_model_of_another_name(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    verdict = judge(packages[REPAIR], tmp_path, final_model=cooling(name="Cooler"))
    assert verdict.failed_stage == "interface" and not verdict.executable
    assert "model Cooling" in verdict.gates["interface"].detail
    assert "check" not in verdict.gates  # the gates stop at the first failure


def test_interface_fails_when_an_interface_variable_is_renamed(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    renamed = (
        cooling()
        .replace("Real T(", "Real Temp(")
        .replace("der(T)", "der(Temp)")
        .replace("(T - Ta)", "(Temp - Ta)")
    )
    verdict = judge(packages[REPAIR], tmp_path, final_model=renamed)
    assert verdict.failed_stage == "interface"
    assert "requires T" in verdict.gates["interface"].detail


def test_interface_is_checked_against_the_results_after_simulation(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    """T is still a word of the source, but now a parameter: no variable T in the results."""
    disguised = cooling("C * der(Temp) = -G * (Temp - Ta);").replace(
        "Real T(start = 373.15, fixed = true);",
        "parameter Real T = 1;\n  Real Temp(start = 373.15, fixed = true);",
    )
    verdict = judge(packages[REPAIR], tmp_path, final_model=disguised)
    assert verdict.failed_stage == "interface" and verdict.executable
    assert "no variable T" in verdict.gates["interface"].detail


def test_constraints_fail_for_incomplete_source(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    fragment = cooling().replace("end Cooling;", "")
    verdict = judge(packages[REPAIR], tmp_path, final_model=fragment)
    assert verdict.failed_stage == "constraints"
    assert "end Cooling;" in verdict.gates["constraints"].detail


def test_constraints_fail_for_untunable_or_out_of_range_parameters(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    tuning = packages[TUNING]
    out_of_range = judge(tuning, tmp_path, parameter_set={"R": 99.0})
    assert out_of_range.failed_stage == "constraints"
    assert "R=99 is outside its range [0.5, 5]" in out_of_range.gates["constraints"].detail
    foreign = judge(tuning, tmp_path, parameter_set={"R": 2.5, "L": 0.2})
    assert "not L" in foreign.gates["constraints"].detail
    nothing = judge(tuning, tmp_path, final_report="done")
    assert "no parameter_set" in nothing.gates["constraints"].detail
    rewritten = judge(tuning, tmp_path, parameter_set={"R": 2.5}, final_model="model RL end RL;")
    assert (
        rewritten.failed_stage == "constraints"
        and "frozen" in rewritten.gates["constraints"].detail
    )


def test_check_fails_for_the_faulty_repair_input(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    package = packages[REPAIR]
    verdict = judge(package, tmp_path, final_model=package.task.initial_model)
    assert verdict.failed_stage == "check" and not verdict.executable
    assert "Tamb" in verdict.gates["check"].detail


def test_simulate_fails_for_a_division_by_zero(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    dividing = cooling("C * der(T) = -G * (T - Ta) / (Ta - 293.15);")
    verdict = judge(packages[REPAIR], tmp_path, final_model=dividing)
    assert verdict.gates["check"].passed
    assert verdict.failed_stage == "simulate" and not verdict.executable
    assert "40 s in 200 intervals" in verdict.gates["simulate"].detail


def test_behaviour_fails_for_each_off_target_variant(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    for package in packages.values():
        for variant in package.contract.off_target:
            verdict = judge(package, tmp_path, **variant.submission.model_dump())
            assert verdict.failed_stage == "behaviour", (variant.name, verdict.explain())
            assert verdict.executable and not verdict.passed


def test_a_private_scenario_catches_what_the_default_run_cannot(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    fixed = cooling("C * der(T) = -G * (T - 293.15);")
    verdict = judge(packages[REPAIR], tmp_path, final_model=fixed)
    failed = [m for m in verdict.metrics if not m.passed]
    assert [m.metric.get("scenario") for m in failed] == ["hot"]
    assert "steady_state T [hot]" in verdict.gates["behaviour"].detail


def test_no_submission_is_its_own_failure(packages: dict[str, TaskPackage]) -> None:
    verdict = evaluate_missing(packages[GENERATION])
    assert verdict.failed_stage == "no_submission" and not verdict.passed and not verdict.gates


def test_the_verdict_names_the_exact_bytes_it_judged(
    packages: dict[str, TaskPackage], tmp_path: Path
) -> None:
    text = lag() + "// submitted at the last turn\n"
    path = tmp_path / "submission.json"
    path.write_text(json.dumps({"final_model": text}), encoding="utf-8")
    work = tmp_path / "work"
    verdict = evaluate(packages[GENERATION], read_submission(path), work_dir=work)
    assert verdict.passed, verdict.explain()
    assert verdict.submission_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (work / "submission" / "Lag.mo").read_text(encoding="utf-8") == text
    path.write_text(json.dumps({"final_model": text}, indent=1), encoding="utf-8")
    again = evaluate(packages[GENERATION], read_submission(path), work_dir=tmp_path / "w2")
    assert again.passed and again.submission_sha256 != verdict.submission_sha256


class _Answering(Backend):
    """A backend that answers one simulation result (the warning policy's cases)."""

    name = "answering"

    def __init__(self, result: SimulationResult) -> None:
        self.result = result

    def available(self) -> tuple[bool, str]:
        return True, ""

    def check(self, source: ModelSource) -> CheckResult:
        return CheckResult(ok=True, model=source.model, backend=self.name)

    def simulate(self, source: ModelSource, settings: SimulationSettings) -> SimulationResult:
        return self.result


def test_a_warning_passes_only_with_a_complete_non_empty_result() -> None:
    settings = SimulationSettings(stop_time=1.0, intervals=2)
    warning = Diagnostic(message="initial residual is large", severity="warning")
    source = ModelSource(files=[Path("M.mo")], model="M")

    def gate(time: list[float], values: list[float]) -> tuple[bool, str]:
        result = SimulationResult(
            ok=True,
            model="M",
            backend="x",
            settings=settings,
            time=time,
            series={"x": values} if time else {},
            diagnostics=[warning],
        )
        passed, _ = simulate_gate(_Answering(result), source, settings)
        return passed.passed, passed.detail

    passed, detail = gate([0.0, 0.5, 1.0], [1.0, 0.6, 0.4])
    assert passed and "warnings: warning: initial residual is large" in detail
    assert gate([], []) == (
        False,
        "simulation to 1 s in 2 intervals fails: the simulation produced an empty result",
    )
    early, detail = gate([0.0, 0.5], [1.0, 0.6])
    assert not early and "before the stop time 1" in detail
    diverged, detail = gate([0.0, 0.5, 1.0], [1.0, float("nan"), 0.4])
    assert not diverged and "non-finite" in detail


def test_submit_learns_the_public_gates_and_nothing_private(
    packages: dict[str, TaskPackage],
) -> None:
    repair, generation, tuning = packages[REPAIR], packages[GENERATION], packages[TUNING]

    def problems(
        package: TaskPackage, content: dict[str, object], library: bool = True
    ) -> list[str]:
        view = task_view(package.task, package.library if library else [], package.library_root)
        return public_problems(view, content, "rumoca")

    assert problems(repair, {"files": {"Cooling.mo": cooling()}}) == []
    # executable but behaviourally wrong: submit must not reveal the private metrics
    assert problems(repair, {"files": {"Cooling.mo": cooling("der(T) = 0;")}}) == []
    faulty = problems(repair, {"files": {"Cooling.mo": repair.task.initial_model}})
    assert len(faulty) == 1 and faulty[0].startswith("check:") and "Tamb" in faulty[0]
    assert "Cooling.mo:7:" in faulty[0] and "/tmp" not in faulty[0]  # the agent's file name
    assert problems(repair, {"files": {"Other.mo": lag()}})[0].startswith("interface:")
    assert problems(generation, {"files": {"Lag.mo": lag()}}) == []
    # the library is loaded with the model: without it WBTest.FirstOrder does not resolve
    assert problems(generation, {"files": {"Lag.mo": lag()}}, library=False)[0].startswith("check:")
    assert problems(tuning, {"parameters": {"R": 1.0}}) == []
    ranged = problems(tuning, {"parameters": {"R": 9.0}})
    assert ranged == ["constraints: R=9 is outside its range [0.5, 5]"]
