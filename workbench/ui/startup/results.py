"""The benchmark's figures: medians per start kind, the ratio to the bare window, JSON and Markdown.

`results` is plain data (it is the JSON file): {"phases": {"warm"|"cold": {"workbench": summary,
"bare": summary, "ratio": float, "cpu": {"workbench": summary, "bare": summary}}}, "setup": {...},
"command": str, "date": str}; a summary is {"runs", "median", "min", "max", "seconds"} in
seconds. "cpu" is each process's CPU time until interactive: on a busy machine the wall time
grows with the load, the CPU time much less.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

JSON_NAME = "startup.json"
MARKDOWN_NAME = "startup.md"
PHASE_TITLES = {"warm": "warm", "cold": "cold (page cache evicted)"}


def summary(seconds: list[float]) -> dict[str, Any]:
    if not seconds:
        raise ValueError("No start was measured: nothing to summarise.")
    return {
        "runs": len(seconds),
        "median": statistics.median(seconds),
        "min": min(seconds),
        "max": max(seconds),
        "seconds": seconds,
    }


def phase(seconds: dict[str, list[float]], cpu: dict[str, list[float]]) -> dict[str, Any]:
    """One start kind from the wall and CPU seconds per program ("workbench", "bare"): both
    programs' summaries and how many times slower Workbench starts."""
    app, baseline = summary(seconds["workbench"]), summary(seconds["bare"])
    return {
        "workbench": app,
        "bare": baseline,
        "ratio": app["median"] / baseline["median"],
        "cpu": {key: summary(values) for key, values in cpu.items()},
    }


def markdown(results: dict[str, Any]) -> str:
    setup = results["setup"]
    lines = [
        "| start | runs | Workbench | bare PySide6 window | Workbench / bare "
        "| CPU: Workbench, bare |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for name, figures in results["phases"].items():
        cpu = figures["cpu"]
        lines.append(
            f"| {PHASE_TITLES.get(name, name)} | {figures['workbench']['runs']} "
            f"| {_cell(figures['workbench'])} | {_cell(figures['bare'])} "
            f"| {figures['ratio']:.1f}x "
            f"| {cpu['workbench']['median']:.2f} s, {cpu['bare']['median']:.2f} s |"
        )
    lines += [
        "",
        "Seconds from launch to an interactive window (painted, and the event loop has handled "
        "everything the start queued): median (min-max); CPU: the process's CPU time until "
        "then, median (less dependent on how busy the machine is).",
        f"Command: `{results['command']}` ({results['date']}).",
        f"Display: {setup['display']}; Qt {setup['qt']}, Python {setup['python']}, "
        f"{setup['machine']}.",
        f"Cold starts: {setup['eviction']}",
    ]
    return "\n".join(lines) + "\n"


def write(results: dict[str, Any], out: Path) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    json_path, markdown_path = out / JSON_NAME, out / MARKDOWN_NAME
    json_path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    markdown_path.write_text(markdown(results), encoding="utf-8")
    return json_path, markdown_path


def _cell(figures: dict[str, Any]) -> str:
    return f"{figures['median']:.2f} s ({figures['min']:.2f}-{figures['max']:.2f})"
