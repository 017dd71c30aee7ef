"""Helpers of the tests that call the HPC tools through the registry, as the agent does."""

from __future__ import annotations

from typing import Any

from workbench.core.context import AppContext
from workbench.core.tools import ToolOutcome


def call(app: AppContext, tool: str, confirmed: bool = False, **args: Any) -> ToolOutcome:
    return app.registry.call(tool, args, caller="test", confirmed=confirmed)


def result_of(outcome: ToolOutcome) -> dict[str, Any]:
    assert outcome.ok, outcome.error.explain() if outcome.error else outcome
    assert outcome.result is not None
    return outcome.result


def own_script(app: AppContext, name: str, command: str) -> str:
    """A batch script of the test's own, in the workspace (submit takes any script there)."""
    path = app.store.folder / "hpc" / "scripts" / f"{name}.sbatch"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/bash\n#SBATCH --job-name={name}\n#SBATCH --time=00:05:00\n{command}\n")
    return str(path)


def submitted(app: AppContext, script: str) -> dict[str, Any]:
    return result_of(call(app, "submit_slurm_job", confirmed=True, script_path=script))
