"""Retrieval benchmark: index a 200-page PDF and search it, against pypdf's bare text extraction
of the same pages in the same run (`python -m workbench_plugins.retrieval.perf`).

Rows: pypdf extraction alone (the floor: reading is most of indexing) and keyword indexing
(read, chunk, write FTS5), each best of 3; a keyword query (median of many); and, when the
offline model is installed (or --dense), indexing with dense vectors and a fused query.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.table import Table

from workbench_plugins.retrieval.index.adding import add_file
from workbench_plugins.retrieval.index.database import DocumentIndex
from workbench_plugins.retrieval.index.embeddings import (
    Embedder,
    OfflineEmbedder,
    offline_installed,
)
from workbench_plugins.retrieval.index.search import Mode, search
from workbench_plugins.retrieval.sample_pdf import write_fact_pdf

QUERIES = [f"specimen SPX{page:04d} failure load" for page in range(1, 201, 7)]


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def extract_only(pdf: Path) -> int:
    """pypdf's bare text extraction of every page: the baseline."""
    from pypdf import PdfReader

    return sum(len(page.extract_text() or "") for page in PdfReader(pdf).pages)


def query_latency(index: DocumentIndex, embedder: Embedder | None, repeats: int = 3) -> float:
    mode: Mode = "fused" if embedder else "keyword"
    times: list[float] = []
    for _ in range(repeats):
        for query in QUERIES:
            started = time.perf_counter()
            search(index, query, mode, 5, embedder)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def _index_once(pdf: Path, database: Path) -> float:
    with DocumentIndex(database) as index:
        return _timed(lambda: add_file(index, pdf))


def run(
    pages: int = 200, dense: bool | None = None, repeats: int = 3
) -> list[tuple[str, float, str]]:
    """(what, seconds, note) rows; dense None: only when the offline model is installed."""
    rows: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory() as folder:
        pdf = write_fact_pdf(Path(folder) / "report.pdf", pages)
        extract_only(pdf)  # warm: imports and the file cache count for neither side
        # best of `repeats` for both sides: the least disturbed run of each on a busy machine
        baseline = min(_timed(lambda: extract_only(pdf)) for _ in range(repeats))
        rows.append((f"pypdf text extraction, {pages} pages", baseline, "baseline"))
        took = min(_index_once(pdf, Path(folder) / f"k{n}.sqlite") for n in range(repeats))
        with DocumentIndex(Path(folder) / "keyword.sqlite") as index:
            add_file(index, pdf)
            rows.append(("index (keyword)", took, f"{took / baseline:.2f}x extraction"))
            latency = query_latency(index, None)
            rows.append(("keyword query (median)", latency, f"{index.chunk_count()} passages"))
            hits = search(index, QUERIES[3], "keyword", 1, None)
            right = hits and hits[0].passage.page == 22
            rows.append(("top hit on the right page", 0.0, "yes" if right else "NO"))
        if dense or (dense is None and offline_installed()):
            embedder = OfflineEmbedder()
            loaded = _timed(lambda: embedder.query("warm up"))
            rows.append(("offline model load (MiniLM)", loaded, "once per process"))
            with DocumentIndex(Path(folder) / "dense.sqlite") as index:
                took = _timed(lambda: add_file(index, pdf, embedder=embedder))
                rows.append(("index (keyword + dense)", took, f"{took / baseline:.2f}x extraction"))
                rows.append(("fused query (median)", query_latency(index, embedder, 1), ""))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--dense", action=argparse.BooleanOptionalAction, default=None)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many (indexing)")
    options = parser.parse_args(argv)
    table = Table(title=f"Retrieval: {options.pages}-page PDF")
    for column in ("measure", "seconds", "note"):
        table.add_column(column)
    for what, seconds, note in run(options.pages, options.dense, options.repeats):
        table.add_row(what, f"{seconds:.4f}" if seconds else "", note)
    Console().print(table)


if __name__ == "__main__":
    main()
