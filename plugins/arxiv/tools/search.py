"""search_arxiv: papers for a few words, an id or arXiv query syntax, listed for the model."""

from __future__ import annotations

from pydantic import BaseModel, Field

from workbench.core.tools import ToolContext
from workbench_plugins.arxiv import client
from workbench_plugins.arxiv.tools.common import arxiv_settings, tool_failure


class SearchArgs(BaseModel):
    query: str = Field(
        ...,
        min_length=1,
        description="Words to find (all must appear), an arXiv id, or arXiv "
        "query syntax such as ti:topology AND au:sigmund",
    )
    max_results: int = Field(5, ge=1, le=50, description="How many papers to return")


class PaperSummary(BaseModel):
    arxiv_id: str
    title: str
    authors: list[str]
    published: str
    category: str
    summary: str


class SearchResult(BaseModel):
    query: str
    total: int = Field(description="How many papers arXiv found in all")
    papers: list[PaperSummary]
    text: str = Field(description="The papers, numbered, each with id, title, authors and date")


def _listing(papers: list[PaperSummary]) -> str:
    if not papers:
        return "No paper matches. Try fewer or other words."
    lines = []
    for rank, paper in enumerate(papers, start=1):
        authors = ", ".join(paper.authors[:3]) + (" et al." if len(paper.authors) > 3 else "")
        lines.append(
            f"[{rank}] arXiv:{paper.arxiv_id} ({paper.published}) {paper.title}\n"
            f"    {authors}\n    {paper.summary[:300]}"
        )
    return "\n".join(lines)


async def search_arxiv(args: SearchArgs, context: ToolContext) -> SearchResult:
    settings = arxiv_settings(context)
    try:
        total, found = await client.search(
            settings.api_url, args.query, args.max_results, settings.timeout_s
        )
    except client.ArxivError as error:
        raise tool_failure(error) from error
    papers = [
        PaperSummary(
            arxiv_id=paper.arxiv_id,
            title=paper.title,
            authors=paper.authors,
            published=paper.published,
            category=paper.primary_category,
            summary=paper.summary,
        )
        for paper in found
    ]
    return SearchResult(query=args.query, total=total, papers=papers, text=_listing(papers))
