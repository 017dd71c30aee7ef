"""`DIR/index.html`, the one place to look after a run: what ran (models with their settings,
judges, presets, software versions, machine) and one section per suite with its headline table
and a link to its full report. Offline and self-contained, like the suites' reports."""

from __future__ import annotations

import html
import os
import platform
import sys
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from workbench.bench.overview import SuiteLine
from workbench.bench.report_page import html_table, write_page
from workbench.bench.results import CellRecord

INDEX = "index.html"
# the packages whose versions decide a result (solvers, agent runtime, model backends)
VERSIONED = (
    "workbench",
    "engibench",
    "numpy",
    "scipy",
    "langgraph",
    "langchain-core",
    "langchain-ollama",
    "langchain-openai",
    "llama-cpp-python",
    "rumoca",
    "OMPython",
    "torch",
    "pint",
)
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1.4em; }
th, td { border: 1px solid #ccc; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
h2 { margin-top: 1.6em; border-bottom: 2px solid #ddd; } .note { color: #555; }
"""


def software_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def machine() -> dict[str, str]:
    pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    return {
        "platform": platform.platform(),
        "processor": platform.machine(),
        "cores": str(os.cpu_count() or "?"),
        "memory": f"{pages * page_size / 2**30:.1f} GiB",
    }


def model_settings(finished: Iterable[CellRecord]) -> dict[str, str]:
    """Each model of the run with the settings its cells recorded (temperature, seed...)."""
    found: dict[str, str] = {}
    for cell in finished:
        settings = cell.get("model_settings") or {}
        shown = ", ".join(f"{key} {value}" for key, value in sorted(settings.items()))
        if shown or cell["model"] not in found:
            found[cell["model"]] = shown or "(a policy or backend defaults: nothing recorded)"
    return found


def _table(header: list[str], rows: list[list[str]], numeric: Collection[int] = ()) -> str:
    """A table of text cells (escaped here)."""
    return html_table(header, [[html.escape(c) for c in row] for row in rows], numeric)


def _facts(facts: dict[str, str]) -> str:
    return _table(["", ""], [[key, value] for key, value in facts.items()])


def _suite_section(out: Path, suite: str, lines: list[SuiteLine]) -> str:
    names = sorted({name for line in lines for name in line.headline})
    rows = [
        [line.model, line.judge or "-", str(line.cells), str(line.errors)]
        + [f"{line.headline[name]:.4g}" if name in line.headline else "-" for name in names]
        for line in lines
    ]
    numeric = set(range(2, 4 + len(names)))
    table = _table(["model", "judge", "cells", "errors", *names], rows, numeric)
    report = next((line.report for line in lines if line.report is not None), None)
    if report is None:
        link = '<p class="note">This suite writes no report of its own.</p>'
    else:
        target = os.path.relpath(report, out)
        link = f'<p>Full report: <a href="{html.escape(target)}">{html.escape(target)}</a></p>'
    return f"<h2>{html.escape(suite)}</h2>{table}{link}"


def write_index(out: Path, finished: list[CellRecord], lines: list[SuiteLine]) -> Path:
    judges = sorted({line.judge for line in lines} - {""})
    presets = sorted({str(cell["preset"]) for cell in finished if cell.get("preset")})
    run = {
        "written": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join(["workbench", *sys.argv[1:]]) if sys.argv else "",
        "cells": f"{len(finished)} ({sum(c['status'] != 'ok' for c in finished)} harness errors)",
        "judges": ", ".join(judges) or "none (no suite of this run was graded by a judge)",
        "presets": ", ".join(presets) or "default",
    }
    models = model_settings(finished)
    sections = "".join(
        _suite_section(out, suite, [line for line in lines if line.suite == suite])
        for suite in sorted({line.suite for line in lines})
    )
    parts = [
        "<h1>Benchmark run</h1>",
        "<p class='note'>Means over the cells that ran to a score; every mean is in "
        "summary.json, every cell in results.jsonl.</p>",
        f"<h2>Run</h2>{_facts(run)}",
        f"<h2>Models</h2>{_table(['model', 'settings'], [[m, s] for m, s in models.items()])}",
        sections,
        f"<h2>Software</h2>{_facts(software_versions())}",
        f"<h2>Machine</h2>{_facts(machine())}",
    ]
    return write_page(out / INDEX, "Benchmark run", STYLE, parts)
