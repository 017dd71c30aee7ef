"""The gates one submission passes or fails, each as plain checks with reasons in words.

I (interface): the model is declared under the task's name and declares the contract's interface.
M (constraints): repair/generation submit complete source; tuning sets only tunable parameters,
numeric, within range. C: the backend's model check. S: simulation at the task's stop time and
intervals under the public warning policy (a warning passes only with a non-empty, complete,
finite result). The evaluator (outside the agent's loop) and the harness's submit (the public
subset) share these functions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel

from workbench_plugins.modelica.backend_base import (
    Backend,
    CheckResult,
    Diagnostic,
    ModelSource,
    SimulationResult,
    SimulationSettings,
)
from workbench_plugins.modelica.task_packages.contract import Interface
from workbench_plugins.modelica.task_packages.submissions import declares

STAGES = ("interface", "constraints", "check", "simulate", "behaviour")
_SHOWN_DIAGNOSTICS = 3


class GateResult(BaseModel):
    passed: bool
    detail: str = ""


def gate(problems: list[str], passed_detail: str) -> GateResult:
    """Passed when there is no problem; else the problems, joined."""
    if problems:
        return GateResult(passed=False, detail="; ".join(problems))
    return GateResult(passed=True, detail=passed_detail)


def _short(model_name: str) -> str:
    return model_name.rsplit(".", 1)[-1]


def code_only(text: str) -> str:
    """Modelica source without comments and string literals (descriptions mention names)."""
    pattern = r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/'
    return re.sub(pattern, " ", text, flags=re.S)


# -- I: interface ---------------------------------------------------------------------------------
def declaration_problems(text: str, model_name: str) -> list[str]:
    if not text.strip():
        return ["the submitted model is empty"]
    if not declares(code_only(text), model_name):
        return [f"the source does not declare `model {_short(model_name)}`"]
    return []


def interface_text_problems(text: str, interface: Interface) -> list[str]:
    """Interface names (their first component) that do not occur in the code at all."""
    words = set(re.findall(r"[A-Za-z_]\w*", code_only(text)))
    missing = [
        name
        for name in [*interface.variables, *interface.parameters]
        if name.split(".", 1)[0] not in words
    ]
    if not missing:
        return []
    return [f"the interface requires {', '.join(missing)}, which the model does not declare"]


def interface_name_problems(
    interface: Interface, variables: Iterable[str], parameters: Iterable[str] | None
) -> list[str]:
    """Interface variables missing from the results, parameters missing from the model
    (`parameters` None: the backend does not list them, so they are not checked here)."""
    problems = []
    known = set(variables)
    if missing := [name for name in interface.variables if name not in known]:
        problems.append(f"the results hold no variable {', '.join(missing)}")
    if parameters is not None:
        declared = set(parameters)
        if missing := [name for name in interface.parameters if name not in declared]:
            problems.append(f"the model has no parameter {', '.join(missing)}")
    return problems


# -- M: constraints -------------------------------------------------------------------------------
def complete_source_problems(text: str, model_name: str) -> list[str]:
    short = re.escape(_short(model_name))
    if not re.search(rf"\bend\s+{short}\s*;", code_only(text)):
        return [
            f"the source is not complete: no `end {_short(model_name)};` "
            "(submit the whole model, not a fragment)"
        ]
    return []


def parameter_problems(
    parameters: Mapping[str, object] | None,
    tunable: Iterable[str],
    ranges: Mapping[str, tuple[float, float]],
) -> list[str]:
    """A tuning submission: a non-empty parameter_set of finite numbers, tunable, in range."""
    if not parameters:
        return ["no parameter_set: a tuning task submits values for its tunable parameters"]
    allowed = list(tunable)
    problems = []
    if foreign := sorted(set(parameters) - set(allowed)):
        problems.append(
            f"only tunable parameters may be set ({', '.join(allowed)}), not {', '.join(foreign)}"
        )
    for name, value in parameters.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            problems.append(f"{name} is not a number")
        elif not math.isfinite(value):
            problems.append(f"{name}={value} is not finite")
        elif name in ranges:
            low, high = ranges[name]
            if not low <= value <= high:
                problems.append(f"{name}={value:g} is outside its range [{low:g}, {high:g}]")
    return problems


# -- C and S: the backend -------------------------------------------------------------------------
def model_source(model_file: Path, model_name: str, library: list[Path]) -> ModelSource:
    """The submitted model file first, then every library file (loaded with every model)."""
    return ModelSource(files=[model_file, *library], model=model_name)


def diagnostics_text(found: list[Diagnostic], severity: str = "error") -> str:
    chosen = [d for d in found if d.severity == severity]
    shown = "; ".join(d.explain() for d in chosen[:_SHOWN_DIAGNOSTICS])
    more = len(chosen) - _SHOWN_DIAGNOSTICS
    return shown + (f" (and {more} more)" if more > 0 else "")


def check_gate(backend: Backend, source: ModelSource) -> tuple[GateResult, CheckResult]:
    result = backend.check(source)
    if result.ok:
        warned = diagnostics_text(result.diagnostics, "warning")
        detail = f"checks on {backend.name}" + (f" with warnings: {warned}" if warned else "")
        return GateResult(passed=True, detail=detail), result
    reason = diagnostics_text(result.diagnostics) or "the check failed"
    return GateResult(passed=False, detail=f"check fails on {backend.name}: {reason}"), result


def simulation_problems(result: SimulationResult) -> list[str]:
    """The public warning policy: failed runs, empty, incomplete or non-finite results fail;
    warnings alone do not."""
    if not result.ok:
        return [diagnostics_text(result.diagnostics) or "the simulation failed"]
    if not result.time or not result.series:
        return ["the simulation produced an empty result"]
    stop = result.settings.stop_time
    if result.time[-1] < stop - 1e-9 * max(1.0, abs(stop)):
        return [f"the result ends at t={result.time[-1]:g}, before the stop time {stop:g}"]
    broken = sorted(
        name for name, values in result.series.items() if not all(map(math.isfinite, values))
    )
    if broken:
        return [f"non-finite values (NaN or infinity) in {', '.join(broken[:5])}"]
    return []


def simulate_gate(
    backend: Backend, source: ModelSource, settings: SimulationSettings
) -> tuple[GateResult, SimulationResult]:
    result = backend.simulate(source, settings)
    problems = simulation_problems(result)
    where = f"{settings.stop_time:g} s in {settings.intervals} intervals"
    if problems:
        return GateResult(
            passed=False, detail=f"simulation to {where} fails: {problems[0]}"
        ), result
    warned = diagnostics_text(result.diagnostics, "warning")
    detail = f"simulates to {where} on {backend.name}"
    return GateResult(passed=True, detail=detail + (f", warnings: {warned}" if warned else "")), (
        result
    )
