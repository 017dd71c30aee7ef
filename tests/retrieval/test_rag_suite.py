"""rag-beams2d end to end: the evaluator validation through the bench runner (the real index,
the real topopt optimiser through the registry), the conditions, and an agent cell played by a
scripted chat model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.bench import CellContext
from workbench.bench.earned import CHEATS
from workbench.bench.results import read_cells
from workbench_plugins.retrieval.bench.rag import conditions, documents
from workbench_plugins.retrieval.bench.rag.suite import NAME, RagSuite, suites
from workbench_plugins.retrieval.bench.rag.validate import main

pytestmark = pytest.mark.slow


def test_the_validation_scores_every_policy_as_designed(
    tmp_path: Path, workbench_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m ...validate` as CI runs it: exit 0 when every check passes."""
    out = tmp_path / "rag-validation"
    assert main(["--out", str(out)]) == 0
    printed = capsys.readouterr().out
    # 12 reference, 2 x 12 cheating, 2 x 4 off-target
    assert "validation passed: 44 cells checked" in printed
    assert (out / "summary.json").is_file()
    records = list(read_cells(out).values())
    assert len(records) == 44

    def scores(model: str, condition: str) -> dict[str, list[float]]:
        found = [r for r in records if r["model"] == model and r["condition"] == condition]
        return {name: [r["scores"][name] for r in found] for name in found[0]["scores"]}

    # acceptance 3: 1.0 on every prompt with RAG on; 0 parameter accuracy with RAG off
    assert scores("reference", "rag")["rag_accuracy"] == [1.0] * 4
    assert scores("reference", "no_rag")["param_accuracy"] == [0.0] * 4
    assert scores("reference", "empty_rag")["param_accuracy"] == [0.0] * 4
    # the off-target policies fail as designed: no search, or the superseded values
    assert scores("offtarget:guess-defaults", "rag")["rag_accuracy"] == [0.0] * 4
    assert scores("offtarget:distractor", "rag")["param_accuracy"] == [0.0] * 4
    assert sorted(scores("offtarget:distractor", "rag")["rag_accuracy"]) == [0.1, 0.2, 0.2, 0.4]
    # the reference read its values out of the hits, the report's from the PDF's page 2
    p2 = next(r for r in records if r["task"] == "P2/rag" and r["model"] == "reference")
    read = {item["parameter"]: item for item in p2["details"]["read_from"]}
    assert read["rmin"]["value"] == 3.7
    assert read["rmin"]["source"] == "documents/cantilever_test_campaign_report.pdf"
    assert read["rmin"]["page"] == 2
    # bound to the stored design: the optimize_design call's arguments and the design's hashes
    [artifact] = p2["details"]["artifacts"]
    assert artifact["arguments"]["problem_config"]["rmin"] == 3.7
    assert len(artifact["artifact_sha256"]) == 64
    assert len(p2["details"]["bindings"]) == 2 and "unbound" not in p2["details"]
    assert all(line.endswith("holds") for line in p2["details"]["bindings"])
    assert str(tmp_path) not in json.dumps(p2["details"])  # no absolute path in a record
    # the cheats score 0 in every condition (the validation checks each exactly)
    cheats = [r for r in records if r["model"] in CHEATS]
    assert len(cheats) == 24 and {r["scores"]["rag_accuracy"] for r in cheats} == {0.0}
    # the report (Fig 6) is written by the run and linked from index.html
    assert 'href="rag-beams2d.html"' in (out / "index.html").read_text(encoding="utf-8")
    assert (out / "rag-beams2d-fig6-rag.png").read_bytes().startswith(b"\x89PNG")
    # a second run resumes: every cell is done, nothing is recomputed
    assert main(["--out", str(out)]) == 0
    assert "validation passed: 44 cells checked" in capsys.readouterr().out


@pytest.mark.parametrize("condition", ["rag", "no_rag", "empty_rag"])
def test_each_condition_in_its_own_workspace(context: Any, tmp_path: Path, condition: str) -> None:
    cell = context.for_workspace(tmp_path / condition)
    try:
        prepared = conditions.prepare(cell, condition)
        offered = set(cell.registry.names())
        assert not {n for n in offered if "arxiv" in n or n.startswith("web_")}
        assert {"arxiv", "websearch"} <= set(prepared.hidden_specialists)
        assert ("search_documents" in offered) is (condition != "no_rag")
        assert "search_documents" in context.registry.names()  # the parent keeps its tools
        if condition == "no_rag":
            return
        listed = cell.registry.call("list_documents", {}, caller="test").result
        assert listed["count"] == (3 if condition == "rag" else 0)
        refused = cell.registry.call("add_document", {"path": "documents"}, caller="test")
        assert not refused.ok and "read-only" in refused.error.message
    finally:
        cell.close()


def test_the_pdf_report_keeps_its_pages(tmp_path: Path) -> None:
    markdown = documents.source(documents.REPORT).read_text(encoding="utf-8")
    pdf = documents.write_pdf(markdown, tmp_path / "report.pdf", "TC-3")
    from pypdf import PdfReader

    pages = [page.extract_text() for page in PdfReader(pdf).pages]
    assert len(pages) == len(documents.pages_of(markdown)) == 5
    assert "filter radius (rmin) 3.7" in " ".join(pages[1].split())


def test_an_agent_cell_is_scored_from_its_tool_calls(context: Any, tmp_path: Path) -> None:
    """A scripted model plays the agent path: hand-off to retrieval, a search, hand-off to
    topopt, optimize_design with the values (volume_fraction as an alias)."""
    replies = [
        {"tool_calls": [{"name": "transfer_to_retrieval", "args": {"task": "CB-7 values"}}]},
        {"tool_calls": [{"name": "search_documents", "args": {"query": "bracket CB-7"}}]},
        {"content": "volfrac 0.58 and forcedist 0.62 (beams2d_design_guide.md)"},
        {"tool_calls": [{"name": "transfer_to_topopt", "args": {"task": "optimise"}}]},
        {
            "tool_calls": [
                {
                    "name": "optimize_design",
                    "args": {
                        "problem_type": "beams2d",
                        "problem_config": {"volfrac": 0.58, "forcedist": 0.62, "max_iter": 3},
                    },
                }
            ]
        },
        {"content": "Optimised."},
        {"content": "Done: the CB-7 design is optimised."},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies))
    suite = suites()[0]
    assert suite.name == NAME
    task = next(t for t in RagSuite().tasks() if t.id == "P1/rag")
    folder = tmp_path / "cell"
    cell = context.for_workspace(folder)
    try:
        produced = suite.run(task, f"scripted:{script}", 0, CellContext(cell, folder))
    finally:
        cell.close()
    assert produced.scores["rag_accuracy"] == 1.0
    tools = [call["tool"] for call in produced.details["calls"]]
    assert tools == ["search_documents", "optimize_design"]
    assert produced.bindings and not produced.broken()  # bound to the design the agent made
