"""Benchmark suites of the retrieval plugin.

quality/  retrieval-quality: recall@5 and MRR of keyword, dense and fused search (its corpus
          in quality/sources/)
rag/      rag-beams2d: agents answering from the indexed documents (in rag/sources/)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.bench import Suite


def suites() -> list[Suite]:
    """Every suite of the plugin; each is imported only when the bench asks for suites."""
    from workbench_plugins.retrieval.bench.quality.suite import suites as quality_suites
    from workbench_plugins.retrieval.bench.rag.suite import suites as rag_suites

    return [*quality_suites(), *rag_suites()]
