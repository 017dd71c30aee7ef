"""Which cells a `bench` command plans: --examples per style, --tasks patterns, and the default
smoke selection (reference cells plus one budgeted agent cell)."""

from __future__ import annotations

import pytest

from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.cell_result import CellResult
from workbench.bench.runner import SMOKE_AGENT_BUDGET, BenchError, plan
from workbench_plugins.topopt.bench.suite import WorkflowSuite
from workbench_plugins.topopt.bench.tasks import styles


class StyleMajor(Suite):
    """Three styles x three examples, ordered style by style (the first 3 tasks are one style)."""

    name = "style-major"

    def tasks(self) -> list[BenchTask]:
        return [
            BenchTask(f"{style}/e{example}", problem="p", style=style, smoke=example == 0)
            for style in ("A", "B-one", "B-two")
            for example in range(3)
        ]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        raise AssertionError("planning only")

    def agent_smoke_task(self) -> BenchTask:
        return self.tasks()[3]


def ids(cells: list) -> list[str]:
    return [cell.task.id for cell in cells]


def test_examples_means_that_many_examples_of_every_style() -> None:
    suites = {"style-major": StyleMajor()}
    cells = plan(suites, ["style-major"], ["reference"], [0], examples=2)
    assert ids(cells) == ["A/e0", "A/e1", "B-one/e0", "B-one/e1", "B-two/e0", "B-two/e1"]
    workflow = {"workflow-beams2d": WorkflowSuite("beams2d")}  # ordered example by example
    cells = plan(workflow, ["workflow-beams2d"], ["reference"], [0], examples=1)
    assert {cell.task.style for cell in cells} == {
        "FULL",
        "NATURAL",
        "W-RAND",
        "W-DERIVED",
        "W-DISTRACT",
        "W-COND",
        "W-MULTI",
    }
    assert len(cells) == 7 and all(cell.task.id.endswith("/e0") for cell in cells)


def test_tasks_patterns_select_styles_or_ids() -> None:
    suites = {"style-major": StyleMajor(), "workflow-beams2d": WorkflowSuite("beams2d")}
    by_style = plan(suites, ["style-major"], ["reference"], [0], patterns=["b-*"])
    assert ids(by_style) == ["B-one/e0", "B-one/e1", "B-one/e2", "B-two/e0", "B-two/e1", "B-two/e2"]
    mixed = plan(suites, ["style-major"], ["m"], [0, 1], patterns=["A/e1, B-two/e2", "A/e0"])
    assert ids(mixed) == ["A/e0"] * 2 + ["A/e1"] * 2 + ["B-two/e2"] * 2
    narrowed = plan(suites, ["workflow-beams2d"], ["m"], [0], examples=2, patterns=["W-RAND"])
    assert ids(narrowed) == ["beams2d/W-RAND/e0", "beams2d/W-RAND/e1"]
    # no suite named: every suite's tasks are searched, not only the smoke ones
    everywhere = plan(suites, [], ["reference"], [0], patterns=["*/e2"])
    assert [(c.suite, c.task.id) for c in everywhere] == [
        ("style-major", "A/e2"),
        ("style-major", "B-one/e2"),
        ("style-major", "B-two/e2"),
        *[("workflow-beams2d", f"beams2d/{s}/e2") for s in styles("beams2d")],
    ]
    with pytest.raises(BenchError, match="--tasks C, W-RNAD matches no task"):
        plan(suites, ["style-major"], ["m"], [0], patterns=["A/*,W-RNAD", "C"])


def test_default_selection_is_reference_smoke_cells_and_one_budgeted_agent_cell() -> None:
    suites = {"style-major": StyleMajor(), "workflow-beams2d": WorkflowSuite("beams2d")}
    cells = plan(suites, [], ["llamacpp:embedded"], [0, 1])
    references = [c for c in cells if c.budget is None]
    assert {c.model for c in references} == {"reference"}
    assert sorted({c.task.id for c in references if c.suite == "style-major"}) == [
        "A/e0",
        "B-one/e0",
        "B-two/e0",
    ]
    [agent] = [c for c in cells if c.budget is not None]  # one cell, the first suite's offer
    assert (agent.suite, agent.task.id, agent.model, agent.seed) == (
        "style-major",
        "B-one/e0",
        "llamacpp:embedded",
        0,
    )
    assert agent.budget == SMOKE_AGENT_BUDGET and agent.key.endswith(SMOKE_AGENT_BUDGET.tag)
    assert all(c.budget is None for c in plan(suites, [], ["reference"], [0]))
