"""A small reference run (two Beams2D cells) shared by the timing, determinism and report tests.
The evaluator validation grid (about 30 cells) runs in CI, not here: .ci/run calls
`python -m workbench_plugins.topopt.bench.validate --photonics` with its own time budget."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.bench import Suite
from workbench.bench.runner import PlannedCell, run_bench
from workbench.core.context import AppContext
from workbench_plugins.topopt.bench.suite import WorkflowSuite


@pytest.fixture(scope="session")
def workflow_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("workflow-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_HOME", str(home))
        yield home


# an optimisation, a simulation and a branch-dependent export; and an abstention
REFERENCE_TASKS = ("beams2d/W-COND/e0", "beams2d/NATURAL/e0")


def reference_cells() -> tuple[dict[str, Suite], list[PlannedCell]]:
    suite = WorkflowSuite("beams2d")
    chosen = [task for task in suite.tasks() if task.id in REFERENCE_TASKS]
    return {suite.name: suite}, [PlannedCell(suite.name, task, "reference", 0) for task in chosen]


def run_reference(out: Path) -> Path:
    """The reference cells through the bench runner, in `out`; a harness error fails here."""
    suites, cells = reference_cells()
    context = AppContext.open(workspace=out.parent / f"{out.name}-session")
    try:
        outcome = run_bench(context, suites, cells, out)
    finally:
        context.close()
    assert not outcome.errors, outcome.errors
    return out


@pytest.fixture(scope="session")
def reference_run(workflow_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_HOME", str(workflow_home))
        return run_reference(tmp_path_factory.mktemp("reference") / "out")
