"""The `hpc-beams2d` suite: its tasks and its place in `bench`. Its validation on the real
cluster (the reference, the off-target policies, the cheats and the report) is one bench run in
test_bench_validation.py."""

from __future__ import annotations

from pathlib import Path

from workbench.bench.results import bench_workspace
from workbench.bench.runner import PlannedCell, load_suites, per_group, run_bench, smoke_plan
from workbench.core.context import AppContext
from workbench_plugins.hpc.bench.prompts import STYLES
from workbench_plugins.hpc.bench.suite import HpcSuite


def test_tasks_cover_four_styles_and_ten_seeds() -> None:
    tasks = HpcSuite().tasks()
    assert len(tasks) == 40 and {task.style for task in tasks} == set(STYLES)
    first = per_group(tasks, 1)  # `--examples 1`: seed 1 of every style
    assert sorted(task.id for task in first) == sorted(f"beams2d/{s}/s1" for s in STYLES)


def test_the_default_bench_selection_needs_no_cluster(workbench_home: Path) -> None:
    context = AppContext.open()
    try:
        suites = load_suites(context)
        assert "hpc-beams2d" in suites  # installed through its entry point
        cells = smoke_plan(suites, ["reference"], [0], None)
        assert cells and all(cell.suite != "hpc-beams2d" for cell in cells)
    finally:
        context.close()


def test_without_a_host_every_cell_fails_saying_how_to_add_one(
    workbench_home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "results"
    context = AppContext.open(workspace=bench_workspace(out))
    try:
        suite = HpcSuite(epochs=2)
        task = suite.tasks()[0]
        outcome = run_bench(
            context, {suite.name: suite}, [PlannedCell(suite.name, task, "reference", 0)], out
        )
    finally:
        context.close()
    assert len(outcome.errors) == 1
    assert "no HPC host is configured" in outcome.errors[0]
    assert "Settings > HPC" in outcome.errors[0]
