"""OMPython backend: contract tests against a FAKE omc (tests/rigs/fake_omc.py) started by the
real OMPython `OMCSessionLocal`; real-omc tests run the same models when omc is installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.modelica.conftest import CASES, MODELS
from tests.rigs.fake_omc import install
from workbench_plugins.modelica.backend_base import ModelSource, SimulationSettings
from workbench_plugins.modelica.omc_backend import OmcBackend
from workbench_plugins.modelica.rumoca_backend import RumocaBackend


@pytest.fixture
def fake_omc_home(tmp_path: Path) -> Path:
    return install(tmp_path / "fake-openmodelica")


def test_unavailable_without_omc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENMODELICAHOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    usable, why = OmcBackend().available()
    assert not usable and "OpenModelica" in why


def test_fake_omc_check_and_simulate_through_ompython(fake_omc_home: Path) -> None:
    backend = OmcBackend(omc_home=str(fake_omc_home), timeout=20)
    assert backend.available()[0]
    source = ModelSource(files=[MODELS / "SpringMassDamper.mo"], model="SpringMassDamper")
    checked = backend.check(source)
    assert checked.ok and checked.structure.equations == 2 and checked.structure.balanced
    result = backend.simulate(
        source,
        SimulationSettings(stop_time=10, intervals=1000, tolerance=1e-8, parameters={"k": 9.0}),
    )
    assert result.ok and result.backend == "omc" and len(result.time) == 1001
    assert set(result.series) == {"x", "v"}  # der(...) columns of the CSV are skipped
    expected = CASES["SpringMassDamper"](10.0, k=9.0)
    assert result.final_values()["x"] == pytest.approx(expected["x"], rel=1e-4)


def test_fake_omc_error_records_become_diagnostics(fake_omc_home: Path, tmp_path: Path) -> None:
    broken = tmp_path / "Broken.mo"
    broken.write_text("model Broken\n  Real x\nequation\n  der(x) = -x;\nend Broken;\n")
    backend = OmcBackend(omc_home=str(fake_omc_home), timeout=20)
    checked = backend.check(ModelSource(files=[broken], model="Broken"))
    assert not checked.ok
    first = checked.diagnostics[0]
    # the fake relays rumoca's position: the OMPython path must carry file and line unchanged
    direct = RumocaBackend().check(ModelSource(files=[broken], model="Broken")).diagnostics[0]
    assert (first.backend, first.stage, first.file) == ("omc", "parse", str(broken))
    assert (first.line, first.column, first.message) == (direct.line, direct.column, direct.message)
    missing = backend.simulate(
        ModelSource(files=[tmp_path / "nope.mo"], model="Nope"), SimulationSettings()
    )
    assert not missing.ok and "Failed to open file" in missing.diagnostics[0].message


def test_simulate_tool_on_the_omc_backend(context, fake_omc_home: Path) -> None:  # type: ignore[no-untyped-def]
    context.settings.plugins["modelica"] = {
        "omc_home": str(fake_omc_home),
        "inline_max_intervals": 10_000,
    }
    outcome = context.registry.call(
        "simulate",
        {
            "file": str(MODELS / "RCCharge.mo"),
            "model": "RCCharge",
            "backend": "omc",
            "stop_time": 10,
            "intervals": 100,
        },
        caller="test",
        confirmed=True,  # the model lies in the tests' folder, outside the workspace
    )
    assert outcome.ok, outcome.error
    assert outcome.result["backend"] == "omc"
    assert outcome.result["final"]["vc"] == pytest.approx(CASES["RCCharge"](10.0)["vc"], rel=1e-3)


@pytest.mark.real_omc
@pytest.mark.skipif(shutil.which("omc") is None, reason="OpenModelica's omc is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_real_omc_agrees_with_rumoca(name: str) -> None:
    source = ModelSource(files=[MODELS / f"{name}.mo"], model=name)
    settings = SimulationSettings(stop_time=10, intervals=1000, tolerance=1e-8)
    ours = RumocaBackend().simulate(source, settings)
    theirs = OmcBackend().simulate(source, settings)
    assert theirs.ok, theirs.diagnostics
    for variable, value in ours.final_values().items():
        assert theirs.final_values()[variable] == pytest.approx(value, rel=1e-4, abs=1e-8)
