"""What the suites' evaluator validations share: run a grid through the bench runner, compare
each finished cell's scores with the designed ones (a cheat's headline with 0), print every
measurement and FAIL line, and exit non-zero when a check failed."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.bench.earned import CHEAT_ABOUT
from workbench.bench.results import bench_workspace
from workbench.bench.runner import PlannedCell
from workbench.core.context import AppContext

TOLERANCE = 1e-9


@dataclass
class Validation:
    folder: Path
    failures: list[str] = field(default_factory=list)
    checked: int = 0
    measured: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def finished_cells(
    result: Validation, cells: list[PlannedCell], records: Mapping[str, dict[str, Any]]
) -> Iterator[tuple[PlannedCell, dict[str, Any]]]:
    """Each cell that ran to a score, with its record, counted as checked. A cell without one
    is already a failure (the runner's harness error)."""
    for cell in cells:
        record = records.get(cell.key)
        if record is None or record["status"] != "ok":
            continue
        result.checked += 1
        yield cell, record


def compare_designed(
    result: Validation,
    key: str,
    scores: Mapping[str, Any],
    designed: Mapping[str, float],
    why: str,
    tolerance: float = TOLERANCE,
) -> None:
    """Record each designed score as measured; one off by more than `tolerance` fails with `why`."""
    for name, wanted in designed.items():
        got = float(scores[name])
        line = f"{key}: {name} = {got:.4f} (designed {wanted:g})"
        result.measured.append(line)
        if abs(got - wanted) > tolerance:
            result.failures.append(f"{line}: {why}")


def check_cheat(
    result: Validation, cell: PlannedCell, scores: Mapping[str, float], headline: tuple[str, ...]
) -> None:
    """Work never done earns nothing: each headline score is 0."""
    for name in headline:
        line = f"{cell.key}: {name} = {scores[name]:.4f} (must be 0)"
        result.measured.append(line)
        if scores[name] != 0.0:
            result.failures.append(f"{line} but {cell.model} ({CHEAT_ABOUT[cell.model]}) scored")


def print_verdict(result: Validation, where: str) -> int:
    """Print the measurements, the failures and the verdict; the exit status."""
    for line in result.measured:
        print(line)
    for failure in result.failures:
        print(f"FAIL {failure}", file=sys.stderr)
    verdict = "passed" if result.passed else "FAILED"
    print(f"validation {verdict}: {result.checked} cells checked{where}")
    return 0 if result.passed else 1


def in_bench_workspace(out: Path, run: Callable[[AppContext], Validation]) -> Validation:
    """Run a validation with the run records in the results folder: validation never touches
    the user's workspace."""
    context = AppContext.open(workspace=bench_workspace(out.resolve()))
    try:
        return run(context)
    finally:
        context.close()
