"""Workbench as a command and its Python, from a venv and from a bundle (where `sys.executable` is
the `workbench` program itself): the shell's `python` must never run Workbench, and the commands
that start Workbench again must not pass it `-m workbench`."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from workbench.core.programs import python_program, workbench_command
from workbench_plugins.shell.policy import locate


def test_from_a_venv_python_is_this_interpreter_and_the_command_runs_workbench() -> None:
    assert python_program() == sys.executable
    assert locate("python") == sys.executable
    done = subprocess.run(
        [*workbench_command(), "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "--headless" in done.stdout


def test_in_a_bundle_python_is_the_systems_and_workbench_is_the_program_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/workbench/workbench")

    assert workbench_command() == ["/opt/workbench/workbench"]
    system_python = shutil.which("python3") or shutil.which("python")
    assert python_program() == system_python != "/opt/workbench/workbench"
    assert locate("python3") == system_python
