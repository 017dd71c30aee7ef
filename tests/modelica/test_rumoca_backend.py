"""Acceptance 1: rumoca checks and simulates real models to their analytic solutions, and broken
models give mapped diagnostics (message, severity, file, line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.modelica.conftest import CASES, MODELS
from workbench_plugins.modelica.backend_base import ModelSource, SimulationSettings
from workbench_plugins.modelica.rumoca_backend import RumocaBackend

REL = 1e-4


def relative_error(value: float, expected: float, scale: float) -> float:
    # relative to the signal's scale: a value crossing zero has no meaningful pointwise ratio
    return abs(value - expected) / scale


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_reports_structure(name: str) -> None:
    result = RumocaBackend().check(ModelSource(files=[MODELS / f"{name}.mo"], model=name))
    assert result.ok, result.explain()
    assert result.diagnostics == []
    assert result.structure is not None and result.structure.balanced
    assert result.structure.equations == result.structure.unknowns


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("parameters", [{}, "tweaked"])
def test_simulation_matches_analytic_solution(name: str, parameters: dict | str) -> None:
    overrides = (
        {
            "SpringMassDamper": {"k": 9.0, "d": 0.6},
            "RCCharge": {"R": 2000.0, "V": 12.0},
            "FirstOrderThermal": {"P": 25.0, "G": 1.5},
        }[name]
        if parameters == "tweaked"
        else {}
    )
    result = RumocaBackend().simulate(
        ModelSource(files=[MODELS / f"{name}.mo"], model=name),
        SimulationSettings(stop_time=10, intervals=1000, tolerance=1e-8, parameters=overrides),
    )
    assert result.ok, result.diagnostics
    assert len(result.time) == 1001 and result.time[-1] == pytest.approx(10.0)
    analytic = CASES[name]
    for variable, values in result.series.items():
        expected = [analytic(t, **overrides)[variable] for t in result.time]
        scale = max(abs(v) for v in expected)
        worst = max(relative_error(v, e, scale) for v, e in zip(values, expected, strict=True))
        assert worst < REL, f"{name}.{variable}: relative error {worst:.2e}"
        final = expected[-1]
        assert (
            abs(values[-1] - final) <= REL * max(abs(final), 1e-12)
            or abs(values[-1] - final) <= REL * scale
        )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "Broken.mo"
    path.write_text(text)
    return path


def test_undeclared_variable_is_located(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "model Broken\n  Real x(start = 1, fixed = true);\nequation\n"
        "  der(x) = -k * x;\nend Broken;\n",
    )
    result = RumocaBackend().check(ModelSource(files=[path], model="Broken"))
    assert not result.ok
    [problem] = result.diagnostics
    assert "unresolved component reference: 'k'" in problem.message
    assert (problem.severity, problem.file, problem.line) == ("error", str(path), 4)
    assert problem.located_by == "search"


def test_unbalanced_equations_are_reported(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "// header\nmodel Broken\n  Real x(start = 1, fixed = true);\n  Real y;\nequation\n"
        "  der(x) = -x;\nend Broken;\n",
    )
    result = RumocaBackend().check(ModelSource(files=[path], model="Broken"))
    assert not result.ok
    [problem] = result.diagnostics
    assert problem.message.startswith("unbalanced model: 1 equations, 2 unknowns")
    assert (problem.severity, problem.file, problem.line) == ("error", str(path), 2)


def test_syntax_error_has_backend_line_and_column(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "model Broken\n  Real x(start = 1, fixed = true)\nequation\n  der(x) = -x;\nend Broken;\n",
    )
    result = RumocaBackend().check(ModelSource(files=[path], model="Broken"))
    assert not result.ok
    first = result.diagnostics[0]
    assert "unexpected `equation`" in first.message
    assert (first.stage, first.file, first.line, first.column) == ("parse", str(path), 3, 1)
    assert first.located_by == "backend"


def test_simulating_a_broken_model_returns_its_diagnostics(tmp_path: Path) -> None:
    path = write(tmp_path, "model Broken\n  Real x;\nequation\n  der(x) = -z;\nend Broken;\n")
    result = RumocaBackend().simulate(
        ModelSource(files=[path], model="Broken"), SimulationSettings()
    )
    assert not result.ok and result.time == []
    assert result.diagnostics[0].line == 4


def test_unknown_model_name_and_parameter_are_explained() -> None:
    source = ModelSource(files=[MODELS / "RCCharge.mo"], model="RcCharge")
    assert "no model named 'RcCharge'" in RumocaBackend().check(source).diagnostics[0].message
    result = RumocaBackend().simulate(
        ModelSource(files=[MODELS / "RCCharge.mo"], model="RCCharge"),
        SimulationSettings(parameters={"L": 1.0}),
    )
    assert not result.ok and "no parameter L" in result.diagnostics[0].message


def test_package_of_several_files_with_library_root(tmp_path: Path) -> None:
    lib = tmp_path / "Lib"
    lib.mkdir()
    (lib / "package.mo").write_text("package Lib\nend Lib;\n")
    (lib / "Decay.mo").write_text(
        "within Lib;\nmodel Decay\n  parameter Real a = 1;\n  Real x(start = 1, fixed = true);\n"
        "equation\n  der(x) = -a * x;\nend Decay;\n"
    )
    top = tmp_path / "app" / "Top.mo"
    top.parent.mkdir()
    top.write_text("model Top\n  Lib.Decay d(a = 2);\n  Real y = 3 * d.x;\nend Top;\n")
    result = RumocaBackend().simulate(
        ModelSource(files=[top], model="Top", libraries=[tmp_path]),
        SimulationSettings(stop_time=1, intervals=100, tolerance=1e-9),
    )
    assert result.ok, result.diagnostics
    import math

    assert result.series["y"][-1] == pytest.approx(3 * math.exp(-2), rel=1e-4)
