"""The workspace plugin's suites (spine, prompt-overhead) return a typed cell result: numbers as
scores, the measurement's breakdown as details, no binding (they measure the machinery, no
agent's work), and headline scores that every cell of the suite records or the suite names."""

from __future__ import annotations

from pathlib import Path

from workbench.bench import CellContext
from workbench.bench.cell_result import CellResult
from workbench_plugins.workspace.bench import suites


def test_each_suite_returns_a_cell_result_with_its_headline(context, tmp_path: Path) -> None:
    found = {suite.name: suite for suite in suites()}
    assert set(found) == {"spine", "prompt-overhead"}
    for suite in found.values():
        recorded: set[str] = set()
        for task in suite.tasks():
            folder = tmp_path / suite.name / task.id
            folder.mkdir(parents=True)
            result = suite.run(task, "reference", 0, CellContext(context, folder))
            assert isinstance(result, CellResult), (suite.name, task.id)
            assert result.scores and not result.bindings
            assert all(type(value) is float for value in result.scores.values()), result.scores
            recorded |= set(result.scores)
        assert suite.headline and set(suite.headline) <= recorded, suite.name
    overhead = found["prompt-overhead"].run(
        found["prompt-overhead"].tasks()[0], "reference", 0, CellContext(context, tmp_path)
    )
    assert "specialists" in overhead.details  # the per-specialist breakdown stays in details
