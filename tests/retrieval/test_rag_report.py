"""Issue 30: the rag-beams2d report holds EngiAI Fig 6 (weighted RAG score contributions per
prompt and model, one figure per condition: RAG-on, RAG-off, Empty RAG), the numbers behind it
and the mean per model and condition, and renders in headless Chromium with its figures shown.
The cells are scored by the suite's own scorer from hand-made tool calls; expected means are
computed by hand."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.support.chromium import screenshot
from workbench.bench.results import CellRecord
from workbench.bench.tool_calls import ToolCall
from workbench_plugins.retrieval.bench.rag import report
from workbench_plugins.retrieval.bench.rag.prompts import PROMPTS
from workbench_plugins.retrieval.bench.rag.scoring import score

SEARCH = ToolCall("search_documents", {"query": "q"})


def optimise(**config: float) -> ToolCall:
    return ToolCall("optimize_design", {"problem_config": config})


def cell(model: str, prompt: str, condition: str, seed: int, calls: list[ToolCall]) -> CellRecord:
    targets = next(item.targets for item in PROMPTS if item.id == prompt)
    return {
        "key": f"rag-beams2d|{prompt}/{condition}|{model}|{seed}",
        "suite": "rag-beams2d",
        "model": model,
        "style": prompt,
        "condition": condition,
        "seed": seed,
        "status": "ok",
        "scores": score(calls, targets),
    }


def cells() -> list[CellRecord]:
    """An agent on every prompt and condition over two runs, P1 RAG-on right once and half
    right once; the reference where it ran; one harness error."""
    made: list[CellRecord] = []
    for item in PROMPTS:
        right = optimise(**item.targets)
        for seed in (0, 1):
            made.append(cell("ollama:agent", item.id, "rag", seed, [SEARCH, right]))
            made.append(cell("ollama:agent", item.id, "no_rag", seed, [right]))  # no search
            made.append(cell("ollama:agent", item.id, "empty_rag", seed, [SEARCH, optimise()]))
        made.append(cell("reference", item.id, "rag", 0, [SEARCH, right]))
    half = cell("ollama:agent", "P1", "rag", 1, [SEARCH, optimise(volfrac=0.58, forcedist=0.1)])
    made = [c for c in made if c["key"] != half["key"]] + [half]
    error: dict[str, Any] = {**cell("reference", "P0", "no_rag", 0, []), "status": "error"}
    return [*made, {**error, "scores": {}, "error": "HarnessFailure: no optimiser"}]


def test_the_contributions_are_the_weighted_parts_averaged_over_runs() -> None:
    scored = report.scored(cells())
    p1 = [c for c in scored if c["style"] == "P1" and c["condition"] == "rag"]
    agent = [c for c in p1 if c["model"] == "ollama:agent"]
    # run 0: 0.2 + 0.4 + 0.4; run 1: 0.2 + 0.4 + 0 (forcedist wrong)
    assert report.mean_parts(agent, "P1") == pytest.approx(
        {"search": 0.2, "volfrac": 0.4, "forcedist": 0.2}
    )
    off = [c for c in scored if c["style"] == "P0" and c["condition"] == "no_rag"]
    assert report.mean_parts(off, "P0") == {"search": 0.0, "volfrac": 0.0}  # right, ungated


def test_the_report_holds_fig6_and_its_tables_and_renders(tmp_path: Path) -> None:
    path = report.write_report(tmp_path, cells())
    page = path.read_text(encoding="utf-8")
    for table in ("weights", "contributions", "conditions"):
        assert f'<table id="{table}">' in page, table
    for condition in ("rag", "no_rag", "empty_rag"):
        assert f'<figure id="fig6-{condition}">' in page
        figure = tmp_path / report.figure_file(condition)
        assert figure.read_bytes().startswith(b"\x89PNG"), figure
    # the paper's names for the conditions, the P1 agent row as computed above
    assert all(name in page for name in ("RAG-on", "RAG-off", "Empty RAG"))
    row = re.search(r"<tr><td>RAG-on</td><td>P1</td><td>ollama:agent</td>(.*?)</tr>", page)
    assert row is not None
    numbers = re.findall(r"<td class=num>([^<]*)</td>", row.group(1))
    assert numbers == ["2", "0.20", "0.40", "0.20", "-", "0.80 &plusmn; 0.20"]
    # RAG-on mean 0.95 (P1 0.8, the rest 1.0); RAG-off 0; Empty RAG (search weights) 0.225
    agent = re.search(r"<tr><td>ollama:agent</td>(.*?)</tr>", page.split('id="conditions"')[1])
    assert agent is not None
    assert re.findall(r">([^<]+)</td>", agent.group(1)) == [
        "0.95",
        "0.00",
        "0.23",
        "+0.95",
        "+0.72",  # 0.95 - 0.225 is 0.72499... in floats
    ]
    assert "HarnessFailure: no optimiser" in page  # left out, and said so

    shot = tmp_path / "shot.png"
    pixels = screenshot(path, shot, tmp_path / "profile", size="1400,3200")
    assert pixels.shape[0] >= 3000 and pixels.std() > 10, f"blank screenshot? see {shot}"
    colours = np.asarray(Image.open(shot).convert("RGB"))
    for part, colour in report.COLOURS.items():  # each part's bars drawn: the figures load
        rgb = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
        assert (colours == rgb).all(axis=2).sum() > 500, part
