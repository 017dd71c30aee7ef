"""web_search: a few pages (title, URL, snippet) for a query, through Tavily."""

from __future__ import annotations

from pydantic import BaseModel, Field

from workbench.core.secrets import where
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.websearch import client
from workbench_plugins.websearch.config import KEY_ENTRY, WebSearchSettings
from workbench_plugins.websearch.tools.access import SET_KEY, tavily_key, what_to_do


class WebSearchArgs(BaseModel):
    query: str = Field(..., min_length=1, description="What to look for on the web")
    max_results: int = Field(5, ge=1, le=20, description="How many pages to return")


class WebPage(BaseModel):
    rank: int
    title: str
    url: str
    snippet: str


class WebSearchResult(BaseModel):
    query: str
    results: list[WebPage]
    text: str = Field(description="The pages, numbered, each with title, URL and snippet")


def _listing(pages: list[WebPage]) -> str:
    if not pages:
        return "No page matches. Try other words."
    return "\n\n".join(f"[{p.rank}] {p.title}\n{p.url}\n{p.snippet[:500]}" for p in pages)


async def web_search(args: WebSearchArgs, context: ToolContext) -> WebSearchResult:
    settings = context.app.settings.plugin("websearch", WebSearchSettings)
    key = tavily_key()
    if key is None:
        raise ToolFailure(f"No Tavily key in {where(KEY_ENTRY)}.", SET_KEY)
    try:
        hits = await client.search(
            settings.api_url,
            key,
            args.query,
            args.max_results,
            settings.search_depth,
            settings.timeout_s,
        )
    except client.TavilyError as error:
        raise ToolFailure(str(error), what_to_do(error)) from error
    pages = [
        WebPage(rank=rank, title=hit.title, url=hit.url, snippet=hit.snippet)
        for rank, hit in enumerate(hits[: args.max_results], start=1)
    ]
    return WebSearchResult(query=args.query, results=pages, text=_listing(pages))


def web_search_tool() -> Tool:
    return Tool(
        "web_search",
        "Search the web (Tavily); returns title, URL and a snippet of each page.",
        WebSearchArgs,
        WebSearchResult,
        web_search,
        SideEffect.READ,
    )
