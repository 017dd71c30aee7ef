"""The arXiv specialist's tools: search_arxiv, and download_arxiv_paper (the PDF into the
workspace, then indexed by the retrieval plugin's add_document, called through the registry: a
plugin never imports another)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from workbench.core.registry import ToolRegistry
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.arxiv import client
from workbench_plugins.arxiv.config import ArxivSettings

INDEX_TOOL = "add_document"
NEEDS_NETWORK = (
    "Check the network, or the address in [plugins.arxiv] (api_url, pdf_url); "
    "`workbench --headless doctor` tries it."
)


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


class DownloadArgs(BaseModel):
    arxiv_id: str = Field(
        ..., min_length=1, description="The paper's id, e.g. 2505.02438 (or arXiv:2505.02438)"
    )


class DownloadResult(BaseModel):
    arxiv_id: str
    path: str = Field(description="Where the PDF is, relative to the workspace")
    size: int
    indexed: bool = Field(description="Whether the document index now holds it")
    message: str


def _settings(context: ToolContext) -> ArxivSettings:
    return context.app.settings.plugin("arxiv", ArxivSettings)


def _failure(error: client.ArxivError) -> ToolFailure:
    hint = NEEDS_NETWORK if error.unreachable else "Check the query or the id and call again."
    return ToolFailure(str(error), hint)


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
    settings = _settings(context)
    try:
        total, found = await client.search(
            settings.api_url, args.query, args.max_results, settings.timeout_s
        )
    except client.ArxivError as error:
        raise _failure(error) from error
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


def paper_path(args: DownloadArgs, context: ToolContext) -> Path:
    """Where the PDF goes: <papers_folder>/<id>.pdf inside the workspace (confined)."""
    try:
        arxiv_id = client.normalize_id(args.arxiv_id)
    except ValueError as error:
        raise ToolFailure(str(error), "Take the id from search_arxiv's result.") from error
    name = arxiv_id.replace("/", "_") + ".pdf"
    return context.file(Path(_settings(context).papers_folder) / name, mode="write")


async def download_arxiv_paper(args: DownloadArgs, context: ToolContext) -> DownloadResult:
    settings = _settings(context)
    target = paper_path(args, context)
    arxiv_id = client.normalize_id(args.arxiv_id)
    url = f"{settings.pdf_url.rstrip('/')}/{arxiv_id}"
    try:
        data = await client.download_pdf(url, settings.timeout_s, int(settings.max_pdf_mb * 1e6))
    except client.ArxivError as error:
        raise _failure(error) from error
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)  # a stopped download never leaves half a PDF under the real name
    shown = _relative(context, target)
    indexed, said = await _index(context, shown)
    return DownloadResult(
        arxiv_id=arxiv_id,
        path=shown,
        size=len(data),
        indexed=indexed,
        message=f"Saved arXiv:{arxiv_id} to {shown} ({len(data)} bytes). {said}",
    )


def _relative(context: ToolContext, path: Path) -> str:
    workspace = context.app.store.folder.resolve()
    return str(path.relative_to(workspace)) if path.is_relative_to(workspace) else str(path)


async def _index(context: ToolContext, path: str) -> tuple[bool, str]:
    """Index the PDF with the retrieval plugin's add_document, when that tool is registered."""
    registry = getattr(context.app, "registry", None)  # AppContext has it; ToolHost does not say
    if not isinstance(registry, ToolRegistry) or registry.get(INDEX_TOOL) is None:
        return False, (
            "Not indexed: indexing needs the retrieval plugin (its add_document tool), which is "
            "not installed or was skipped; `workbench --headless doctor` lists the plugins."
        )
    outcome = await registry.acall(INDEX_TOOL, {"path": path}, caller=context.caller)
    if outcome.ok and outcome.result is not None:
        return True, f"Indexed: {outcome.result.get('message', '')}"
    error = outcome.error
    reason = error.message if error is not None else "add_document returned nothing"
    return False, f"Not indexed: {reason}"


def tools() -> list[Tool]:
    return [
        Tool(
            "search_arxiv",
            "Search arXiv for papers (all words must appear; or an arXiv id); returns id, title, "
            "authors, date and abstract of each.",
            SearchArgs,
            SearchResult,
            search_arxiv,
            SideEffect.READ,
        ),
        Tool(
            "download_arxiv_paper",
            "Download an arXiv paper's PDF into the workspace (papers/<id>.pdf) and add it to "
            "the document index so search_documents finds it.",
            DownloadArgs,
            DownloadResult,
            download_arxiv_paper,
            SideEffect.WRITE,
            files=paper_path,
        ),
    ]
