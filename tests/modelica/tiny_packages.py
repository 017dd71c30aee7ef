"""Three tiny task packages (repair, generation with a library, tuning), written by the tests.

Each runs on rumoca in milliseconds; the numbers in their metrics come from the closed-form
solutions of the models (first-order responses), not from a run of the evaluator.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

BENCHMARK = "Modelica Agent Workflow Benchmark"

LIBRARY = """package WBTest "a tiny component library"
  model FirstOrder "y follows u with time constant T"
    parameter Real T = 1 "time constant";
    Real u "input";
    Real y(start = 0, fixed = true) "output";
  equation
    T * der(y) = u - y;
  end FirstOrder;
end WBTest;
"""


def cooling(equation: str = "C * der(T) = -G * (T - Ta);", name: str = "Cooling") -> str:
    return f"""model {name} "a body cooling towards ambient"
  parameter Real C = 10 "heat capacity";
  parameter Real G = 2 "conductance";
  parameter Real Ta = 293.15 "ambient";
  Real T(start = 373.15, fixed = true);
equation
  {equation}
end {name};
"""


def lag(time_constant: float = 0.5) -> str:
    return f"""model Lag "a first-order lag driven by a unit step"
  parameter Real T = {time_constant} "time constant";
  WBTest.FirstOrder lag(T = T);
  Real y;
equation
  lag.u = 1;
  y = lag.y;
end Lag;
"""


RL = """model RL "a resistor-inductor step"
  parameter Real R(min = 0.5, max = 5) = 1;
  parameter Real V = 10;
  parameter Real L = 0.5;
  Real i(start = 0, fixed = true);
equation
  L * der(i) + R * i = V;
end RL;
"""


def public(
    task_id: str, task_type: str, model_name: str, stop: float, intervals: int, **by_type: Any
) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "benchmark": BENCHMARK,
        "benchmark_version": "v0.2-preview",
        "split": "hidden_official_v0.2",
        "task_type": task_type,
        "difficulty": "easy",
        "model_name": model_name,
        "workflow_goal": f"Make {model_name} work.",
        "verification": {
            "tool": "OpenModelica",
            "check_model": True,
            "simulate": {"stop_time": stop, "intervals": intervals},
        },
        "acceptance": ["checkModel passes", "simulate reaches an accepted status"],
        **by_type,
    }


def _cooling_at(t: float, ambient: float = 293.15) -> float:
    return ambient + (373.15 - ambient) * math.exp(-t * 2 / 10)


REPAIR_TASK = public(
    "wb_repair_thermal_01",
    "model_repair",
    "Cooling",
    40.0,
    200,
    initial_model=cooling("C * der(T) = -G * (T - Tamb);"),  # undeclared name: fails check
)
REPAIR_CONTRACT = {
    "task_id": "wb_repair_thermal_01",
    "domain": "thermal",
    "intended_failure_stage": "check",
    "interface": {"variables": ["T"], "parameters": ["G", "Ta"]},
    "scenarios": [
        {"name": "default", "stop_time": 40.0, "intervals": 200},
        {"name": "hot", "stop_time": 40.0, "intervals": 200, "parameters": {"Ta": 313.15}},
    ],
    "metrics": [
        {"type": "monotonic", "variable": "T", "direction": "decreasing"},
        {
            "type": "value_at_time",
            "variable": "T",
            "time": 5.0,
            "target": _cooling_at(5.0),
            "tolerance": 0.2,
        },
        {"type": "steady_state", "variable": "T", "target": 293.15, "tolerance": 0.5},
        {
            "type": "steady_state",
            "variable": "T",
            "target": 313.15,
            "tolerance": 0.5,
            "scenario": "hot",
        },
    ],
    "known_valid": {"final_model": cooling()},
    "off_target": [
        {
            "name": "no-physics",
            "about": "deletes the heat flow",
            "submission": {"final_model": cooling("der(T) = 0;")},
        },
        {
            "name": "fixed-ambient",
            "about": "ignores Ta (right by default, wrong when hot)",
            "submission": {"final_model": cooling("C * der(T) = -G * (T - 293.15);")},
        },
    ],
}

GENERATION_TASK = public(
    "wb_generation_control_01",
    "model_generation",
    "Lag",
    3.0,
    300,
    requirements=["Use WBTest.FirstOrder from library/ with T = 0.5 s.", "Expose y."],
)
GENERATION_CONTRACT = {
    "task_id": "wb_generation_control_01",
    "domain": "control",
    "interface": {"variables": ["y"], "parameters": ["T"]},
    "scenarios": [{"name": "default", "stop_time": 3.0, "intervals": 300}],
    "metrics": [
        {
            "type": "value_at_time",
            "variable": "y",
            "time": 0.5,
            "target": 1 - math.exp(-1),
            "tolerance": 0.02,
        },
        {"type": "settling_time", "variable": "y", "band": 0.02, "max": 2.5},
        {"type": "overshoot", "variable": "y", "max": 0.01},
        {"type": "bounds", "variable": "y", "min": 0.0, "max": 1.0},
    ],
    "known_valid": {"final_model": lag()},
    "off_target": [{"name": "slow", "submission": {"final_model": lag(2.0)}}],
}

TUNING_TASK = public(
    "wb_tuning_electrical_01",
    "model_tuning",
    "RL",
    0.6,
    250,
    initial_model=RL,
    tunable_parameters=["R"],
    parameter_ranges={"R": {"min": 0.5, "max": 5.0}},
    target_metrics=[
        {
            "type": "value_at_time",
            "variable": "i",
            "time": 0.2,
            "target": 2.52848,
            "tolerance": 0.04,
        },
        {
            "type": "value_at_time",
            "variable": "i",
            "time": 0.6,
            "target": 3.80085,
            "tolerance": 0.04,
        },
        {"type": "monotonic", "variable": "i", "direction": "increasing"},
    ],
)
TUNING_CONTRACT = {
    "task_id": "wb_tuning_electrical_01",
    "domain": "electrical",
    "interface": {"variables": ["i"], "parameters": ["R"]},
    "scenarios": [
        {"name": "default", "stop_time": 0.6, "intervals": 250},
        {"name": "long", "stop_time": 3.0, "intervals": 300},
    ],
    "metrics": [{"type": "bounds", "variable": "i", "max": 4.05, "scenario": "long"}],
    "known_valid": {"parameter_set": {"R": 2.5}},
    "off_target": [{"name": "low-R", "submission": {"parameter_set": {"R": 1.0}}}],
}

PACKAGES = {
    "wb_repair_thermal_01": (REPAIR_TASK, REPAIR_CONTRACT),
    "wb_generation_control_01": (GENERATION_TASK, GENERATION_CONTRACT),
    "wb_tuning_electrical_01": (TUNING_TASK, TUNING_CONTRACT),
}


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def write_packages(root: Path, chosen: tuple[str, ...] = tuple(PACKAGES)) -> Path:
    """The chosen packages (and the library) under `root`, in the benchmark layout."""
    (root / "library").mkdir(parents=True, exist_ok=True)
    (root / "library" / "WBTest.mo").write_text(LIBRARY, encoding="utf-8")
    for task_id in chosen:
        task, contract = PACKAGES[task_id]
        write_json(root / "tasks" / f"{task_id}.json", task)
        write_json(root / "contracts" / f"{task_id}.json", contract)
    return root
