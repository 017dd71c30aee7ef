"""search_documents: numbered passages with source, page and score (keyword, dense or fused)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.retrieval.index.embeddings import DenseStatus
from workbench_plugins.retrieval.index.search import SearchError, search
from workbench_plugins.retrieval.tools.support import (
    dense_of,
    open_index,
    plugin_settings,
    source_name,
)


class SearchArgs(BaseModel):
    query: str = Field(..., description="What to look for, in plain words")
    num_results: int = Field(5, ge=1, le=20, description="How many passages to return")
    mode: Literal["auto", "keyword", "dense", "fused"] = Field(
        "auto", description="auto: fused when an embedding model is available, else keyword"
    )

    @field_validator("query")
    @classmethod
    def _has_words(cls, query: str) -> str:
        """A blank query matches nothing (keyword) or everything alike (dense): refused."""
        if not query.strip():
            raise ValueError("the query is blank: say what to look for in a few words")
        return query


class Passage(BaseModel):
    rank: int
    source: str
    page: int | None
    section: str
    score: float
    text: str = Field(description="The whole passage, as indexed")
    highlight: str = Field("", description="A short excerpt with the matched words in [brackets]")


class SearchResult(BaseModel):
    query: str
    mode: str
    text: str = Field(description="The passages, numbered, each with its source and page")
    passages: list[Passage]
    note: str = ""


def search_documents(args: SearchArgs, context: ToolContext) -> SearchResult:
    settings = plugin_settings(context)
    dense = dense_of(context, settings) if args.mode != "keyword" else DenseStatus(None, "")
    mode = args.mode if args.mode != "auto" else ("fused" if dense.embedder else "keyword")
    note = "" if dense.embedder or args.mode == "keyword" else f"keyword only: {dense.reason}"
    with open_index(context) as index:
        if not index.documents():
            return SearchResult(
                query=args.query,
                mode=mode,
                text="No documents are indexed.",
                passages=[],
                note="Add documents with add_document first.",
            )
        try:
            hits = search(index, args.query, mode, args.num_results, dense.embedder)
        except SearchError as error:
            raise ToolFailure(f"{mode} search failed: {error}", "Use mode='keyword'.") from error
    passages = [
        Passage(
            rank=rank,
            source=source_name(context, hit.passage.path),
            page=hit.passage.page,
            section=hit.passage.section,
            score=round(hit.score, 4),
            # the whole passage: an excerpt's cut can split a number ("3.[7]") a reader needs
            text=hit.passage.text,
            highlight=hit.passage.snippet,
        )
        for rank, hit in enumerate(hits, start=1)
    ]
    return SearchResult(
        query=args.query, mode=mode, text=_numbered(passages), passages=passages, note=note
    )


def _numbered(passages: list[Passage]) -> str:
    if not passages:
        return "No passage matches. Try other words."
    blocks = []
    for p in passages:
        where = p.source + (f", page {p.page}" if p.page else "")
        where += f", section '{p.section}'" if p.section else ""
        blocks.append(f"[{p.rank}] {where} (score {p.score:g})\n{p.text}")
    return "\n\n".join(blocks)
