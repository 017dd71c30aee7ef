"""What a plugin implements to contribute a benchmark suite."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.core.context import AppContext


@dataclass(frozen=True)
class BenchTask:
    """One task of a suite; `problem`, `style` and `condition` are the summary's grouping keys."""

    id: str
    problem: str = ""
    style: str = ""
    condition: str = ""
    smoke: bool = False  # part of the default selection when `bench` names no suite
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass
class CellContext:
    app: AppContext
    folder: Path  # where the cell may write files (kept with the results)

    @property
    def caller(self) -> str:
        return f"bench:{self.folder.name}"


class Suite(ABC):
    name: str = ""
    description: str = ""
    # Suites with the same report group share one report: the runner asks only the first of
    # them (by name), with the cells of all of them. Empty: the suite reports on its own.
    report_group: str = ""

    @abstractmethod
    def tasks(self) -> list[BenchTask]:
        """Every task of the suite, in a stable order."""

    @abstractmethod
    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> dict[str, Any]:
        """Run one cell and return its scores (numbers) and, under "details", anything else.

        Low scores are results, not errors. Raise only when the harness itself failed.
        """

    def report(self, folder: Path, cells: list[dict[str, Any]]) -> Path | None:
        """Write this suite's report (tables, plots) into the results folder after a run and
        return its main file; the default writes none."""
        return None

    def smoke_tasks(self) -> list[BenchTask]:
        marked = [task for task in self.tasks() if task.smoke]
        return marked or self.tasks()[:1]
