"""Fail unless every cell of a results folder scores what it must (CI's gate on a bench run).

    python -m workbench.bench.check_summary DIR --require task_completion=1 [--require iou>=0.9]

Reads DIR/summary.json: every group must have no harness error and a mean that meets each
requirement; a score in [0, 1] whose mean is 1 is 1 in every cell. The cells that miss are named
from DIR/results.jsonl. Exit code 0: all met; 1: something missed; 2: the folder or a
requirement cannot be read.
"""

from __future__ import annotations

import argparse
import json
import math
import operator
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workbench.bench.results import GROUP_KEYS, SUMMARY, CellRecord, read_cells

_COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "=": lambda value, wanted: math.isclose(value, wanted, abs_tol=1e-9),
}
_REQUIREMENT = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*(>=|<=|=)\s*(\S+)\s*$")


@dataclass(frozen=True)
class Requirement:
    score: str
    comparison: str
    value: float

    @classmethod
    def parse(cls, text: str) -> Requirement:
        found = _REQUIREMENT.match(text)
        try:
            if found is not None:
                return cls(found[1], found[2], float(found[3]))
        except ValueError:
            pass  # not a number
        raise ValueError(f"{text!r} is not a requirement such as task_completion=1 or iou>=0.9")

    def met_by(self, value: float) -> bool:
        return _COMPARISONS[self.comparison](value, self.value)

    def __str__(self) -> str:
        return f"{self.score}{self.comparison}{self.value:g}"


def check(folder: Path, requirements: list[Requirement]) -> list[str]:
    """What misses, one line each; empty when every group meets every requirement."""
    groups = json.loads((folder / SUMMARY).read_text(encoding="utf-8"))["groups"]
    if not groups:
        return [f"{folder / SUMMARY} has no cells"]
    cells = list(read_cells(folder).values())
    failures = []
    for group in groups:
        name = "/".join(str(group[key]) for key in GROUP_KEYS if group[key])
        members = [c for c in cells if all(c.get(k, "") == group[k] for k in GROUP_KEYS)]
        if group["errors"]:
            broken = [c["key"] for c in members if c["status"] != "ok"]
            failures.append(f"{name}: {group['errors']} harness error(s): {', '.join(broken)}")
        for requirement in requirements:
            mean = group["mean"].get(requirement.score)
            if mean is None:
                failures.append(f"{name}: no {requirement.score} score")
            elif not requirement.met_by(mean):
                missed = [c["key"] for c in members if not _cell_meets(c, requirement)]
                failures.append(
                    f"{name}: mean {requirement.score} = {mean:.4g}, required {requirement}; "
                    f"cells: {', '.join(missed)}"
                )
    return failures


def _cell_meets(cell: CellRecord, requirement: Requirement) -> bool:
    value = cell.get("scores", {}).get(requirement.score)
    return isinstance(value, int | float) and requirement.met_by(float(value))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path, help="a bench results folder (--out)")
    parser.add_argument(
        "--require",
        action="append",
        default=[],
        metavar="SCORE=VALUE",
        help="e.g. task_completion=1 or iou>=0.9 (repeatable)",
    )
    args = parser.parse_args(argv)
    try:
        requirements = [Requirement.parse(text) for text in args.require]
        failures = check(args.folder, requirements)
    except (OSError, ValueError, KeyError) as error:
        print(f"check_summary: cannot check {args.folder}: {error}", file=sys.stderr)
        return 2
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    wanted = ", ".join(map(str, requirements)) or "no harness error"
    verdict = "FAILED" if failures else "passed"
    print(f"check_summary {verdict}: {args.folder} ({wanted})")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
