"""The `mcp-roundtrip` report: `mcp-roundtrip.md` (one row per cell: faithful, the medians
direct and through MCP, overhead, ratio, server start) and `mcp-roundtrip.png` (time per call
direct vs MCP per tool, and faithful per policy).

    python -m workbench_plugins.mcp_servers.bench.report RESULTS_FOLDER
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from workbench.bench.report_command import rewrite_report
from workbench.bench.results import CellRecord

SUITE = "mcp-roundtrip"
REPORT = "mcp-roundtrip.md"
PLOT = "mcp-roundtrip.png"


def score(cell: CellRecord, name: str) -> float:
    return float(cell.get("scores", {}).get(name, 0.0))


def models_of(cells: list[CellRecord]) -> list[str]:
    """Reference first, then the off-target policies, then any other model."""
    return sorted(
        {str(c["model"]) for c in cells},
        key=lambda m: (m != "reference", not m.startswith("offtarget:"), m),
    )


def tools_of(cells: list[CellRecord]) -> list[str]:
    return sorted({str(c["problem"]) for c in cells})


def table(cells: list[CellRecord]) -> list[str]:
    lines = [
        "| tool | model | seed | calls | faithful | direct ms | MCP ms | overhead ms | ratio "
        "| server start s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for model in models_of(cells):
        for cell in sorted(
            (c for c in cells if c["model"] == model), key=lambda c: (c["problem"], c["seed"])
        ):
            if cell.get("status") != "ok":
                lines.append(
                    f"| {cell['problem']} | {model} | {cell['seed']} | | harness error | | | | | |"
                )
                continue
            lines.append(
                f"| {cell['problem']} | {model} | {cell['seed']} | {score(cell, 'calls'):.0f} "
                f"| {score(cell, 'faithful'):.0f} | {score(cell, 'direct_ms'):.2f} "
                f"| {score(cell, 'mcp_ms'):.2f} | {score(cell, 'overhead_ms'):.2f} "
                f"| {score(cell, 'ratio'):.2f} | {score(cell, 'start_s'):.2f} |"
            )
    return lines


def report_text(cells: list[CellRecord], plot: str = PLOT) -> str:
    lines = [
        "# MCP round trip",
        "",
        "Each cell calls one tool N times directly through its own registry (the baseline) and "
        "N times through MCP: Workbench's own server (`workbench --headless mcp` over stdio, "
        "with a home of its own in the cell) on the mcp_servers plugin's kept session, "
        "alternately. Times are medians per call in ms, seen from the cell; the server start "
        "(process, handshake, tool listing) is paid once per session. `faithful` is 1 when every "
        "answer sealed in mcp_results.json equals the direct result (job ids, elapsed times and "
        "workspace folders aside) and what the server's own store recorded for exactly N calls.",
        "",
        f"![time per call, direct and through MCP; faithful per policy]({plot})",
        "",
        *table(cells),
    ]
    unfaithful = [c for c in cells if c.get("status") == "ok" and score(c, "faithful") < 1]
    if unfaithful:
        lines += ["", "Why not faithful (first reason):", ""]
        for cell in unfaithful:
            problems = cell.get("details", {}).get("problems") or ["(none given)"]
            lines.append(f"- {cell['problem']}, {cell['model']}: {problems[0]}")
    errors = [c for c in cells if c.get("status") != "ok"]
    if errors:
        lines += ["", f"{len(errors)} cell(s) failed in the harness:", ""]
        lines += [f"- {c['key']}: {c.get('error', '')}" for c in errors]
    return "\n".join(lines) + "\n"


def plot(cells: list[CellRecord], path: Path) -> Path:
    """Left: median time per call per tool, direct and through MCP (reference cells, log
    scale, the ratio above each pair). Right: faithful per tool and model."""
    ok = [c for c in cells if c.get("status") == "ok"]
    tools = tools_of(cells)
    figure = Figure(figsize=(9.0, 3.6), layout="constrained")
    times, faithful = figure.add_subplot(1, 2, 1), figure.add_subplot(1, 2, 2)
    x = np.arange(len(tools))
    reference = [[c for c in ok if c["model"] == "reference" and c["problem"] == t] for t in tools]
    direct = [_mean(group, "direct_ms") for group in reference]
    mcp = [_mean(group, "mcp_ms") for group in reference]
    times.bar(x - 0.2, direct, 0.4, label="direct (registry)")
    times.bar(x + 0.2, mcp, 0.4, label="through MCP")
    for index, (low, high) in enumerate(zip(direct, mcp, strict=True)):
        if low > 0:
            times.annotate(
                f"x{high / low:.2f}", (index + 0.2, high), ha="center", va="bottom", fontsize=7
            )
    measured = [value for value in direct + mcp if value > 0]
    times.set_yscale("log")  # a read takes milliseconds, an optimisation seconds
    if measured:
        times.set_ylim(min(measured) / 4, max(measured) * 4)
    times.set_ylabel("ms per call (median)")
    times.set_title("reference: time per call (x: MCP / direct)", fontsize=9)
    times.legend(fontsize=7, loc="upper left")
    models = models_of(cells)
    width = 0.8 / max(1, len(models))
    for index, model in enumerate(models):
        values = [
            _mean([c for c in ok if c["model"] == model and c["problem"] == t], "faithful")
            for t in tools
        ]
        offset = (index - (len(models) - 1) / 2) * width
        bars = faithful.bar(x + offset, values, width, label=model.removeprefix("offtarget:"))
        faithful.bar_label(bars, fmt="%.0f", fontsize=7)  # a 0 is a result: show it
    faithful.set_ylim(0, 1.25)
    faithful.set_title("faithful (1: every answer matches)", fontsize=9)
    faithful.legend(fontsize=7, loc="upper right", ncols=max(1, len(models)))
    for axes in (times, faithful):
        axes.set_xticks(x, tools, fontsize=7)
    figure.savefig(path, dpi=90)
    return path


def _mean(cells: list[CellRecord], name: str) -> float:
    return float(np.mean([score(c, name) for c in cells])) if cells else 0.0


def write_report(folder: Path, cells: list[CellRecord]) -> Path:
    """The report of `cells` (the suite's) in `folder`; returns the Markdown file."""
    mine = [c for c in cells if c.get("suite") == SUITE]
    plot(mine, folder / PLOT)
    path = folder / REPORT
    path.write_text(report_text(mine), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    return rewrite_report("mcp-roundtrip", write_report, argv)


if __name__ == "__main__":
    raise SystemExit(main())
