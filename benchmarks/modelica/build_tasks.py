"""Build the Modelica benchmark task set: public task JSON + benchmark-owned contracts.

Run from the repository root: `.venv/bin/python benchmarks/modelica/build_tasks.py [--check]`.
Every target is computed by simulating the reference (or the known-valid parameter set) on
rumoca; every package is verified before it is written: references and known-valid answers meet
all metrics, repair inputs fail at their intended stage, off-target variants simulate but miss a
metric, and tuning start values miss a public target. `--check` verifies and compares with the
committed JSON instead of writing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from authoring.compute import Outcome, fill, meets, run_model  # noqa: E402
from authoring.generation_tasks import generation_tasks  # noqa: E402
from authoring.repair_tasks import repair_tasks  # noqa: E402
from authoring.taskdef import (  # noqa: E402
    BENCHMARK,
    SPLIT,
    VERSION,
    TaskDef,
    apply_edits,
    parameter_value,
    with_parameter_values,
)
from authoring.tuning_tasks import tuning_tasks  # noqa: E402

MAX_SECONDS = 2.0


def all_tasks() -> list[TaskDef]:
    return [*repair_tasks(), *generation_tasks(), *tuning_tasks()]


class Builder:
    """Builds and verifies one task; `problems` collects what does not hold."""

    def __init__(self, task: TaskDef) -> None:
        self.task = task
        self.problems: list[str] = []
        self.runs = 0

    def run(self, text: str, parameters: dict[str, float], what: str) -> Outcome:
        outcome = run_model(
            text, self.task.model_name, self.task.stop_time, self.task.intervals, parameters
        )
        self.runs += 1
        if outcome.elapsed_s > MAX_SECONDS:
            self.problems.append(f"{what}: simulation took {outcome.elapsed_s:.2f} s")
        return outcome

    def scenario_runs(self, text: str, base: dict[str, float], what: str) -> dict[str, Outcome]:
        runs = {}
        for name, changes in self.scenarios().items():
            runs[name] = self.run(text, {**base, **changes}, f"{what}/{name}")
        return runs

    def scenarios(self) -> dict[str, dict[str, float]]:
        return {"default": {}, **self.task.scenarios}

    def known_text(self) -> str:
        if self.task.workflow != "tuning":
            return self.task.reference
        return with_parameter_values(self.task.reference, self.task.start_values)

    def known_parameters(self) -> dict[str, float]:
        if self.task.workflow != "tuning":
            return {}
        return {name: parameter_value(self.task.reference, name) for name in self.task.tunable}

    def build(self) -> tuple[dict[str, Any], dict[str, Any]]:
        task = self.task
        known = self.scenario_runs(self.known_text(), self.known_parameters(), "known_valid")
        for name, outcome in known.items():
            if outcome.failed_stage:
                raise RuntimeError(f"{task.task_id}: reference fails in {name}: {outcome.message}")
        metrics = [fill(m, known[m["scenario"]]) for m in task.metrics]
        public = [fill(m, known["default"]) for m in task.public_targets]
        for metric in public:
            metric.pop("scenario")
        self.verify(known, metrics, public)
        return self.public_task(public), self.contract(metrics)

    def verify(
        self, known: dict[str, Outcome], metrics: list[dict[str, Any]], public: list[dict[str, Any]]
    ) -> None:
        task = self.task
        everything = metrics + [{**m, "scenario": "default"} for m in public]
        missed = [m for m in everything if not meets(m, known[m["scenario"]])[0]]
        if missed:
            self.problems.append(f"known-valid misses {missed}")
        if task.workflow == "repair":
            initial = self.run(self.initial_model(), {}, "initial")
            if initial.failed_stage != task.stage:
                self.problems.append(
                    f"initial fails at {initial.failed_stage or 'nothing'!r}, intended "
                    f"{task.stage!r} ({initial.message[:120]})"
                )
        if task.workflow == "repair" and len(task.faults) > 1:
            self.verify_partial_fix(metrics)
        if task.workflow == "tuning":
            start = self.run(self.known_text(), {}, "start values")
            if all(meets({**m, "scenario": "default"}, start)[0] for m in public):
                self.problems.append("the start values already meet every public target")
        for off in task.off_targets:
            self.verify_parameter_set(off.name, off.parameters)
            self.verify_off_target(off.name, off.edits, off.parameters, everything)
        for name, changes in task.scenarios.items():
            if set(changes) & set(task.tunable):
                self.problems.append(f"scenario {name} overrides a tunable parameter")

    def verify_partial_fix(self, metrics: list[dict[str, Any]]) -> None:
        """Multi-fault repairs: mending only the first fault must not be enough."""
        partial = apply_edits(self.task.reference, self.task.faults[1:], self.task.task_id)
        runs = self.scenario_runs(partial, {}, "first fault fixed")
        if not any(o.failed_stage for o in runs.values()) and all(
            meets(m, runs[m["scenario"]])[0] for m in metrics
        ):
            self.problems.append("fixing only the first fault already meets every metric")

    def verify_parameter_set(self, name: str, parameters: dict[str, float]) -> None:
        """An off-target parameter set must pass the M gate so that B fails it on behaviour."""
        for parameter, value in parameters.items():
            low, high = self.task.tunable.get(parameter, (None, None))
            if low is None or high is None or not low <= value <= high:
                self.problems.append(f"off_target {name}: {parameter}={value} not tunable/in range")

    def verify_off_target(
        self,
        name: str,
        edits: list[tuple[str, str]],
        parameters: dict[str, float],
        metrics: list[dict[str, Any]],
    ) -> None:
        text = apply_edits(self.task.reference, edits, f"{self.task.task_id}/{name}")
        if self.task.workflow == "tuning":
            text = self.known_text()
        runs = self.scenario_runs(text, parameters, f"off_target {name}")
        broken = {n: o.message[:120] for n, o in runs.items() if o.failed_stage}
        if broken:
            self.problems.append(f"off_target {name} is not executable: {broken}")
            return
        if all(meets(m, runs[m["scenario"]])[0] for m in metrics):
            self.problems.append(f"off_target {name} meets every metric")

    def initial_model(self) -> str:
        if self.task.workflow == "repair":
            return apply_edits(self.task.reference, self.task.faults, self.task.task_id)
        return self.known_text()

    def public_task(self, public: list[dict[str, Any]]) -> dict[str, Any]:
        task = self.task
        data: dict[str, Any] = {
            "task_id": task.task_id,
            "benchmark": BENCHMARK,
            "benchmark_version": VERSION,
            "split": SPLIT,
            "task_type": task.task_type,
            "difficulty": task.difficulty,
            "model_name": task.model_name,
            "workflow_goal": task.workflow_goal,
        }
        if task.workflow == "generation":
            data["requirements"] = task.requirements
        else:
            data["initial_model"] = self.initial_model()
        if task.workflow == "tuning":
            data["tunable_parameters"] = list(task.tunable)
            data["target_metrics"] = public
            data["parameter_ranges"] = {
                name: {"min": low, "max": high} for name, (low, high) in task.tunable.items()
            }
        data["verification"] = {
            "tool": "OpenModelica",
            "check_model": True,
            "simulate": {"stop_time": task.stop_time, "intervals": task.intervals},
        }
        data["acceptance"] = task.acceptance
        return data

    def contract(self, metrics: list[dict[str, Any]]) -> dict[str, Any]:
        task = self.task
        scenarios = [
            {
                "name": name,
                "stop_time": task.stop_time,
                "intervals": task.intervals,
                "parameters": changes,
            }
            for name, changes in self.scenarios().items()
        ]
        if task.workflow == "tuning":
            known: dict[str, Any] = {"parameter_set": self.known_parameters()}
        else:
            known = {"final_model": task.reference}
        off_targets = []
        for off in task.off_targets:
            if task.workflow == "tuning":
                submission: dict[str, Any] = {"parameter_set": off.parameters}
            else:
                submission = {"final_model": apply_edits(task.reference, off.edits, off.name)}
            off_targets.append({"name": off.name, "about": off.about, "submission": submission})
        return {
            "task_id": task.task_id,
            "domain": task.domain,
            "intended_failure_stage": task.stage if task.workflow == "repair" else None,
            "interface": {"variables": task.variables, "parameters": task.parameters},
            "scenarios": scenarios,
            "metrics": metrics,
            "known_valid": known,
            "off_target": off_targets,
        }


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="verify, compare, write nothing")
    parser.add_argument("--only", default="", help="build only task ids containing this text")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    failures = 0
    for task in all_tasks():
        if args.only not in task.task_id:
            continue
        builder = Builder(task)
        public, contract = builder.build()
        for problem in builder.problems:
            print(f"FAIL {task.task_id}: {problem}")
        failures += bool(builder.problems)
        targets = {
            HERE / "tasks" / f"{task.task_id}.json": public,
            HERE / "contracts" / f"{task.task_id}.json": contract,
        }
        for path, data in targets.items():
            if args.check:
                same = path.is_file() and json.loads(path.read_text()) == data
                if not same:
                    print(f"STALE {path.relative_to(HERE)}: rebuild with build_tasks.py")
                    failures += 1
            elif not builder.problems:
                write_json(path, data)
        print(f"{'ok  ' if not builder.problems else 'FAIL'} {task.task_id} ({builder.runs} runs)")
    print(f"{failures} failing, {time.perf_counter() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
