"""The results folder: `results.jsonl` (one finished cell a line) and `summary.json`.

Each line is written with one `write` on a file opened for appending, then flushed to disk, so a
killed run leaves whole lines only; a torn last line (power loss) is ignored on reading.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path
from statistics import fmean
from typing import Any, TypedDict

RESULTS = "results.jsonl"
SUMMARY = "summary.json"
WORKSPACE = "workspace"  # <out>/workspace holds the run records; each cell's folder is its own
# "judge": the judge model of a suite that judges ("" for the others and older records)
GROUP_KEYS = ("suite", "problem", "style", "condition", "model", "judge")
# A finished cell as `results.jsonl` keeps it: the runner's keys (key, suite, task, problem, style,
# condition, model, seed, status, scores, details, duration_s, error...) plus whatever a suite put
# in its details; plain JSON, read and written by suites' reports too.
CellRecord = dict[str, Any]


class SummaryRow(TypedDict):
    """One group of `summary.json`: its keys (GROUP_KEYS), cell count, errors, mean scores."""

    suite: str
    problem: str
    style: str
    condition: str
    model: str
    judge: str
    cells: int
    errors: int
    mean: dict[str, float]


def cell_key(suite: str, task: str, model: str, seed: int, tag: str = "") -> str:
    """`tag` marks a cell played under other rules (the smoke selection's agent budget), so
    it never stands in for the full cell on resume."""
    return f"{suite}|{task}|{model}|{seed}" + (f"|{tag}" if tag else "")


def cell_folder(out: Path, key: str) -> Path:
    """A cell's files and workspace: <out>/cells/<key made file-name safe>."""
    return out / "cells" / key.replace("|", "__").replace("/", "_").replace(":", "_")


def bench_workspace(out: Path) -> Path:
    """The workspace holding a results folder's run records (never the user's workspace)."""
    return out / WORKSPACE


def append_cell(folder: Path, record: CellRecord) -> None:
    line = (json.dumps(record, sort_keys=True, default=str) + "\n").encode()
    descriptor = os.open(folder / RESULTS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def read_cells(folder: Path) -> dict[str, CellRecord]:
    """The latest record of every cell key."""
    cells: dict[str, CellRecord] = {}
    path = folder / RESULTS
    if not path.exists():
        return cells
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        cells[record["key"]] = record
    return cells


def summarise(cells: list[CellRecord]) -> list[SummaryRow]:
    """Per (suite, problem, style, condition, model, judge): how many cells and the mean of
    every score."""
    groups: dict[tuple[str, ...], list[CellRecord]] = defaultdict(list)
    for cell in cells:
        groups[tuple(str(cell.get(key, "")) for key in GROUP_KEYS)].append(cell)
    rows = []
    for (suite, problem, style, condition, model, judge), members in sorted(groups.items()):
        scores: dict[str, list[float]] = defaultdict(list)
        for member in members:
            for name, value in member.get("scores", {}).items():
                if isinstance(value, bool | int | float):
                    scores[name].append(float(value))
        rows.append(
            SummaryRow(
                suite=suite,
                problem=problem,
                style=style,
                condition=condition,
                model=model,
                judge=judge,
                cells=len(members),
                errors=sum(member["status"] != "ok" for member in members),
                mean={name: fmean(values) for name, values in sorted(scores.items())},
            )
        )
    return rows


def write_summary(folder: Path, cells: list[CellRecord]) -> list[SummaryRow]:
    rows = summarise(cells)
    partial = folder / (SUMMARY + ".part")
    partial.write_text(json.dumps({"groups": rows}, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(partial, folder / SUMMARY)
    return rows
