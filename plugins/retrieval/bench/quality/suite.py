"""The `retrieval-quality` suite: how well the document index finds the passage that answers.

Each cell writes the corpus into its own folder (its own workspace), indexes it there with the
plugin's index code, runs every query in one mode and scores recall@5 and MRR. A cell records the
sha256 of every file it indexed and of the query set, so a score always names its corpus, and its
scores are bound to the corpus (workbench.bench.earned): every file written must be in the index
with the sha256 it was written with, else the headline (recall@5, MRR) is 0. A file that failed
to index is a harness failure, never a lower score.

Tasks:
- keyword, dense, fused: the index's search modes. Dense and fused need an embedding model
  (Ollama's or the offline MiniLM); without one the cell says so and records no scores, so the
  summary shows no value rather than a zero.
- first-chunks: an off-target policy returning the index's first five passages whatever the
  query; it must score near zero, which shows the scores reward finding, not listing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.agents.ollama import ollama_base_url
from workbench.bench import BenchTask, CellContext, Suite
from workbench.bench.earned import Binding, CellResult
from workbench.bench.results import CellRecord
from workbench_plugins.retrieval.bench.quality import corpus
from workbench_plugins.retrieval.bench.quality.scoring import (
    RankedPassage,
    judge,
    mean,
    recall_at_k,
    reciprocal_rank,
)
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index.adding import Chunking, add_folder
from workbench_plugins.retrieval.index.database import DocumentIndex, Passage
from workbench_plugins.retrieval.index.embeddings import Embedder, dense_status
from workbench_plugins.retrieval.index.search import Mode, search

K = 5
REPORT = "retrieval-quality.md"
OFF_TARGET = "first-chunks"
MODES: dict[str, Mode] = {"keyword": "keyword", "dense": "dense", "fused": "fused"}
# recall@5 also over these query groups: an outdated or corrected value is nearby; the words
# of the query are not the document's
GROUPS = {
    "distractor": frozenset({"distractor", "errata"}),
    "paraphrase": frozenset({"paraphrase"}),
}
# a policy: (index, query, how many) -> passages, best first
Policy = Callable[[DocumentIndex, str, int], list[Passage]]


def first_chunks(index: DocumentIndex, query: str, limit: int) -> list[Passage]:
    """The off-target policy: the first passages of the index, whatever the query."""
    # no vectors are ever stored under the model name "": every passage, in index order
    ids = [chunk_id for chunk_id, _ in index.unembedded("")[:limit]]
    found = index.passages(ids)
    return [found[chunk_id] for chunk_id in ids if chunk_id in found]


def search_policy(mode: Mode, embedder: Embedder | None) -> Policy:
    def policy(index: DocumentIndex, query: str, limit: int) -> list[Passage]:
        return [hit.passage for hit in search(index, query, mode, limit, embedder)]

    return policy


def score_queries(
    index: DocumentIndex, queries: list[corpus.Query], policy: Policy, k: int = K
) -> dict[str, Any]:
    """recall@k and MRR over `queries` and over each of GROUPS (`recall_at_5_distractor`...),
    and per query what was found, for the cell's details."""
    recalls, ranks, per_query = [], [], []
    grouped: dict[str, list[float]] = {}
    for query in queries:
        ranked = [
            RankedPassage(p.path, p.page, p.section, p.text) for p in policy(index, query.text, k)
        ]
        judged = judge(ranked, query.targets)
        recall, rank = recall_at_k(judged, len(query.targets), k), reciprocal_rank(judged)
        recalls.append(recall)
        ranks.append(rank)
        for group, tags in GROUPS.items():
            if tags & set(query.tags):
                grouped.setdefault(f"recall_at_5_{group}", []).append(recall)
                grouped.setdefault(f"mrr_{group}", []).append(rank)
        per_query.append(
            {
                "id": query.id,
                "recall_at_5": recall,
                "reciprocal_rank": rank,
                "top": [_cited(passage) for passage in ranked],
            }
        )
    scores = {"recall_at_5": mean(recalls), "mrr": mean(ranks)}
    scores.update({name: mean(values) for name, values in grouped.items()})
    return {"scores": scores, "per_query": per_query}


def _cited(passage: RankedPassage) -> str:
    where = f"page {passage.page}" if passage.page is not None else passage.section
    return f"{Path(passage.path).name}: {where}"


class RetrievalQualitySuite(Suite):
    name = "retrieval-quality"
    headline = ("recall_at_5", "mrr")
    description = (
        "Recall@5 and MRR of document search (keyword, dense, fused) on our own engineering "
        "corpus with outdated datasheets and an errata, against an off-target policy."
    )

    def __init__(self, settings: RetrievalSettings | None = None) -> None:
        # the defaults unless given: the user's settings never change a score
        self.settings = settings or RetrievalSettings()

    def tasks(self) -> list[BenchTask]:
        problem = "engineering-docs"
        return [
            BenchTask("keyword", problem=problem, style="keyword", smoke=True),
            BenchTask("dense", problem=problem, style="dense"),
            BenchTask("fused", problem=problem, style="fused"),
            BenchTask(OFF_TARGET, problem=problem, style=OFF_TARGET, condition="off-target"),
        ]

    def run(self, task: BenchTask, model: str, seed: int, cell: CellContext) -> CellResult:
        settings = self.settings
        embedder: Embedder | None = None
        dense_reason = ""
        if task.id in ("dense", "fused"):  # need an embedding model
            status = dense_status(settings, ollama_base_url(cell.app.settings))
            embedder, dense_reason = status.embedder, status.reason
            if embedder is None:  # no scores rather than zeros: nothing was measured
                reason = f"no embedding model here: {dense_reason}"
                return CellResult({}, {"applicable": False, "mode": task.id, "reason": reason})
        written = corpus.write_corpus(cell.folder / "documents")
        policy = first_chunks if task.id == OFF_TARGET else search_policy(MODES[task.id], embedder)
        with DocumentIndex.of_workspace(cell.app.store.folder) as index:
            added = add_folder(
                index,
                written.folder,
                chunking=Chunking(settings.chunk_words, settings.overlap_words),
                embedder=embedder,
            )
            if added.failed:
                failed = "; ".join(f"{path.name}: {why}" for path, why in added.failed)
                raise RuntimeError(f"the corpus did not index: {failed}")
            measured = score_queries(index, corpus.queries(), policy)
            passages = index.chunk_count()
            bindings = corpus_bindings(written, index)
        return CellResult(
            measured["scores"],
            {
                "applicable": True,
                "mode": task.id,
                "embedder": dense_reason,
                "index": str(index.database),
                "passages": passages,
                "corpus_sha256": written.sha256,
                "corpus_files": written.files,
                "queries_sha256": written.queries_sha256,
                "queries": len(measured["per_query"]),
                "per_query": measured["per_query"],
            },
            bindings,
            self.headline,
        )

    def report(self, folder: Path, cells: list[CellRecord]) -> Path:
        path = folder / REPORT
        path.write_text(report_table(cells), encoding="utf-8")
        return path


def corpus_bindings(written: corpus.WrittenCorpus, index: DocumentIndex) -> list[Binding]:
    """Each corpus file bound to the sha256 it was written with, as the index holds it (None:
    not in the index): the scores were measured on exactly the files they name."""
    held = {Path(info.path).name: info.sha256 for info in index.documents()}
    return [
        Binding(f"corpus file {name} in the index", sha, held.get(name))
        for name, sha in sorted(written.files.items())
    ]


def report_table(cells: list[CellRecord]) -> str:
    """A Markdown table: recall@5 and MRR per mode (mean over the mode's cells), the corpus
    they were measured on, and why a mode has no value."""
    lines = [
        "# Retrieval quality",
        "",
        "| mode | cells | recall@5 | MRR | distractor recall@5 / MRR "
        "| paraphrase recall@5 / MRR "
        "| corpus sha256 | note |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    order = [task.id for task in RetrievalQualitySuite().tasks()]
    modes = {cell["task"] for cell in cells}
    for mode in [m for m in order if m in modes] + sorted(modes - set(order)):
        lines.append(_row(mode, [c for c in cells if c["task"] == mode]))
    return "\n".join(lines) + "\n"


def _row(mode: str, cells: list[CellRecord]) -> str:
    scored = [c for c in cells if c.get("status") == "ok" and c.get("scores")]
    errors = [c for c in cells if c.get("status") != "ok"]
    notes = sorted(
        {
            str(c["details"].get("reason", ""))
            for c in cells
            if c.get("details", {}).get("applicable") is False
        }
    )
    notes += [f"{len(errors)} cell(s) failed: {errors[0].get('error', '')}"] if errors else []

    def average(name: str) -> str:
        values = [float(c["scores"][name]) for c in scored if name in c["scores"]]
        return f"{mean(values):.3f}" if values else "n/a"

    corpora = sorted({str(c["details"].get("corpus_sha256", ""))[:12] for c in scored})
    return (
        f"| {mode} | {len(cells)} | {average('recall_at_5')} | {average('mrr')} | "
        f"{average('recall_at_5_distractor')} / {average('mrr_distractor')} | "
        f"{average('recall_at_5_paraphrase')} / {average('mrr_paraphrase')} | "
        f"{', '.join(corpora) or '-'} | "
        f"{'; '.join(n for n in notes if n) or ''} |"
    )


def suites() -> list[Suite]:
    return [RetrievalQualitySuite()]
