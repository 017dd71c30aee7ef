"""Acceptance 5: `workbench --headless tool simulate|check_model` from a shell."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.modelica.conftest import CASES, MODELS


def tool(name: str, arguments: dict, *, exit_code: int = 0) -> dict:
    done = subprocess.run(
        # the models lie in the tests' folder, outside the workspace: --yes confirms them
        [
            sys.executable,
            "-m",
            "workbench",
            "--headless",
            "tool",
            name,
            json.dumps(arguments),
            "--yes",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == exit_code, done.stderr
    return json.loads(done.stdout)


def test_simulate_prints_final_value_of_every_variable() -> None:
    arguments = {
        "file": str(MODELS / "SpringMassDamper.mo"),
        "model": "SpringMassDamper",
        "stop_time": 10,
        "intervals": 1000,
        "tolerance": 1e-8,
        "parameters": {"k": 9.0},
    }
    outcome = tool("simulate", arguments)
    assert outcome["ok"], outcome
    result = outcome["result"]
    assert result["backend"] == "rumoca" and result["points"] == 1001
    expected = CASES["SpringMassDamper"](10.0, k=9.0)
    assert set(result["final"]) == {"x", "v"}
    for name, value in expected.items():
        assert result["final"][name] == pytest.approx(value, rel=1e-4, abs=1e-6)


def test_simulate_with_the_issue_arguments_only() -> None:
    outcome = tool(
        "simulate",
        {
            "file": str(MODELS / "RCCharge.mo"),
            "model": "RCCharge",
            "stop_time": 10,
            "intervals": 1000,
        },
    )
    final = outcome["result"]["final"]
    assert final["vc"] == pytest.approx(CASES["RCCharge"](10.0)["vc"], rel=1e-4)


def test_check_model_prints_diagnostics(tmp_path: Path) -> None:
    good = tool("check_model", {"file": str(MODELS / "RCCharge.mo"), "model": "RCCharge"})
    assert good["result"]["ok"] and good["result"]["diagnostics"] == []
    broken = tmp_path / "Broken.mo"
    broken.write_text(
        "model Broken\n  Real x(start = 0, fixed = true);\nequation\n  der(x) = y;\nend Broken;\n"
    )
    outcome = tool("check_model", {"file": str(broken), "model": "Broken"})
    result = outcome["result"]
    assert outcome["ok"] and not result["ok"]
    [problem] = result["diagnostics"]
    assert (
        problem["file"] == str(broken) and problem["line"] == 4 and problem["severity"] == "error"
    )


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    outcome = tool("simulate", {"file": str(tmp_path / "nope.mo"), "model": "X"}, exit_code=1)
    assert not outcome["ok"]
    assert "No Modelica file" in outcome["error"]["message"]
