"""What a plugin implements to contribute a benchmark suite."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

from workbench.bench.results import CellRecord

if TYPE_CHECKING:
    from workbench.bench.cell_result import CellResult
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


@dataclass(frozen=True)
class AgentBudget:
    """What an agent may spend on one cell. A cell that spends it stops there and is scored on
    what it did: running out is a result, not a harness error."""

    model_calls: int
    tokens: int  # prompt + completion, summed over the cell's model calls
    seconds: float  # wall clock: checked between steps (and ends an embedded model's reply)

    def describe(self) -> str:
        return f"{self.model_calls} model calls, {self.tokens} tokens, {self.seconds:g} s"

    @property
    def tag(self) -> str:
        """Part of the cell key: the same task played under another budget is another cell."""
        return f"budget={self.model_calls}calls,{self.tokens}tok,{self.seconds:g}s"


@dataclass
class CellContext:
    app: AppContext  # on the cell's own workspace (store, artifacts, ledger, chats): `folder`
    folder: Path  # where the cell may write files (kept with the results)
    budget: AgentBudget | None = None  # None: the suite's own limits for agents
    judge: str = ""  # the model that grades this cell (`bench --judge`), for suites that judge
    preset: str = ""  # the suite's named settings asked for (`bench --preset`), "" its default

    @property
    def caller(self) -> str:
        return f"bench:{self.folder.name}"


RULES_KIND = "rules"  # a cell's judge_settings kind when its judge is one of the suite's rules


class Suite(ABC):
    name: str = ""
    description: str = ""
    # Suites with the same report group share one report: the runner asks only the first of
    # them (by name), with the cells of all of them. Empty: the suite reports on its own.
    report_group: str = ""
    # The scores a person compares first (the terminal's one-line summary, index.html); the
    # scores a broken binding zeroes (workbench.bench.earned). Empty: the first few by name.
    headline: tuple[str, ...] = ()
    # Named settings a suite can run with besides its default (`bench --preset NAME`), e.g. a
    # paper's slower optimiser settings; a cell run with one has it in its key and record.
    presets: tuple[str, ...] = ()
    # Judges that are rules, not models (no tokens, no finding): every report and summary that
    # shows their numbers says so.
    rule_judges: tuple[str, ...] = ()

    @abstractmethod
    def tasks(self) -> list[BenchTask]:
        """Every task of the suite, in a stable order."""

    @abstractmethod
    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        """Run one cell and return its scores, details and the bindings its headline rests on
        (workbench.bench.earned: only succeeded work counts).

        Low scores are results, not errors. Raise only when the harness itself failed.
        """

    def report(self, folder: Path, cells: list[CellRecord]) -> Path | None:
        """Write this suite's report (tables, plots) into the results folder after a run and
        return its main file; the default writes none."""
        return None

    def judge_for(self, model: str, requested: str) -> str:
        """The judge of `model`'s cells, when `bench --judge` asked for `requested` ("" when
        not given). A suite whose scores come from a judge model returns one (its default when
        none was asked for); the judge is then part of the cell key, so a cell graded by another
        judge is another cell. The default: "", this suite uses no judge."""
        return ""

    def smoke_tasks(self) -> list[BenchTask]:
        """The default selection (`bench` naming no suite) plays these with the reference."""
        marked = [task for task in self.tasks() if task.smoke]
        return marked or self.tasks()[:1]

    def agent_smoke_task(self) -> BenchTask | None:
        """A task worth one short agent cell in the default selection (the runner plays the
        first one offered, by suite name, under a small budget); None for suites that measure
        no model."""
        return None


def is_suite(item: object) -> TypeGuard[Suite]:
    """What a plugin's suites factory must return a list of."""
    return isinstance(item, Suite)
