"""The retrieval-quality scores against values worked out by hand, and the corpus's ground truth:
every relevant passage a query names exists in the indexed corpus, and the corpus is the same
bytes every time it is written."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from workbench_plugins.retrieval.bench.quality import corpus
from workbench_plugins.retrieval.bench.quality.scoring import (
    RankedPassage,
    Target,
    judge,
    matches,
    mean,
    normalised,
    recall_at_k,
    reciprocal_rank,
)
from workbench_plugins.retrieval.index.adding import add_folder
from workbench_plugins.retrieval.index.database import DocumentIndex

NONE: frozenset[int] = frozenset()


def test_recall_at_k_counts_each_target_once_within_the_first_k() -> None:
    # two targets; hits: miss, target 0, target 0 again, miss, miss, target 1 (rank 6)
    judged = [NONE, frozenset({0}), frozenset({0}), NONE, NONE, frozenset({1})]
    assert recall_at_k(judged, targets=2, k=5) == 0.5  # only target 0 in the first 5
    assert recall_at_k(judged, targets=2, k=6) == 1.0
    assert recall_at_k(judged, targets=2, k=1) == 0.0
    assert recall_at_k([frozenset({0, 1, 2})], targets=3, k=5) == 1.0  # one hit, three targets
    assert recall_at_k([], targets=1, k=5) == 0.0
    with pytest.raises(ValueError, match="at least one relevant passage"):
        recall_at_k(judged, targets=0, k=5)


def test_reciprocal_rank_is_one_over_the_first_relevant_rank() -> None:
    assert reciprocal_rank([frozenset({0})]) == 1.0
    assert reciprocal_rank([NONE, NONE, frozenset({1}), frozenset({0})]) == pytest.approx(1 / 3)
    assert reciprocal_rank([NONE] * 5) == 0.0
    assert reciprocal_rank([]) == 0.0


def test_mean_reciprocal_rank_over_queries() -> None:
    # first relevant at ranks 1, 2 and never: (1 + 1/2 + 0) / 3 = 0.5
    ranks = [reciprocal_rank(j) for j in ([frozenset({0})], [NONE, frozenset({0})], [NONE])]
    assert mean(ranks) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no queries"):
        mean([])


def test_a_hit_matches_only_the_right_document_place_and_phrase() -> None:
    target = Target("ds-pad-v2", phrase="5.0 W/mK", section="Properties")
    right = RankedPassage("/w/docs/ds-pad-v2.md", None, "Pad > Properties", "| k | 5.0 W/mK |")
    assert matches(right, target)
    outdated = RankedPassage("/w/docs/ds-pad-v1.md", None, "Pad > Properties", "| 5.0 W/mK |")
    assert not matches(outdated, target)  # same words, other document
    elsewhere = RankedPassage("/w/docs/ds-pad-v2.md", None, "Pad > Handling", "5.0 W/mK")
    assert not matches(elsewhere, target)
    wrong_value = RankedPassage("/w/docs/ds-pad-v2.md", None, "Pad > Properties", "6.0 W/mK")
    assert not matches(wrong_value, target)

    on_page = Target("report", phrase="derate to 25 W", page=2)
    extracted = RankedPassage("report.pdf", 2, "", "the controller must\nderate to\n25  W or")
    assert matches(extracted, on_page)  # line breaks and spacing of PDF text do not matter
    assert not matches(RankedPassage("report.pdf", 1, "", "derate to 25 W"), on_page)


def test_judge_lists_the_targets_each_hit_matches() -> None:
    targets = [Target("a", "alpha"), Target("b", "beta", page=1)]
    ranked = [
        RankedPassage("b.pdf", 1, "", "Beta!"),
        RankedPassage("c.md", None, "", "alpha beta"),
        RankedPassage("a.md", None, "", "ALPHA"),
    ]
    assert judge(ranked, targets) == [frozenset({1}), NONE, frozenset({0})]
    assert normalised("-40 °C to 85 °C | (m·K)") == "40cto85cmk"


def test_the_corpus_is_large_enough_and_has_multi_page_pdfs_and_distractors() -> None:
    documents = corpus.manifest()
    queries = corpus.queries()
    assert len(documents) >= 20 and len(queries) >= 40
    assert len({q.id for q in queries}) == len(queries)
    pdfs = [d for d in documents if d["format"] == "pdf"]
    assert len(pdfs) >= 5
    assert any("distractor" in q.tags for q in queries) and any("errata" in q.tags for q in queries)
    ids = {d["id"] for d in documents}
    assert {t.document for q in queries for t in q.targets} <= ids


def test_every_relevant_passage_exists_in_the_indexed_corpus(tmp_path: Path) -> None:
    written = corpus.write_corpus(tmp_path / "documents")
    with DocumentIndex(tmp_path / "index.sqlite") as index:
        added = add_folder(index, written.folder)
        assert not added.failed
        pages = {Path(f.info.path).name: f.info.pages for f in added.files}
        ids = [chunk_id for chunk_id, _ in index.unembedded("")]
        passages = [
            RankedPassage(p.path, p.page, p.section, p.text) for p in index.passages(ids).values()
        ]
    assert all(pages[f"{d['id']}.pdf"] >= 2 for d in corpus.manifest() if d["format"] == "pdf")
    missing = [
        (query.id, target)
        for query in corpus.queries()
        for target in query.targets
        if not any(matches(passage, target) for passage in passages)
    ]
    assert missing == []


def test_the_corpus_is_written_byte_for_byte_the_same(tmp_path: Path) -> None:
    first = corpus.write_corpus(tmp_path / "one")
    second = corpus.write_corpus(tmp_path / "two")
    assert first.files == second.files and first.sha256 == second.sha256
    assert len(first.files) == len(corpus.manifest())
    edited = replace(first, files={**first.files, "note-bolt-preload-m8.md": "0" * 64})
    assert edited.sha256 != first.sha256  # a score names exactly the files it was measured on
