"""A cell's condition, set up in its own sealed workspace before the policy plays.

- rag: the reference documents indexed in the cell's workspace; the index read-only.
- no_rag: the retrieval tools (and the retrieval specialist) are not offered.
- empty_rag: the tools are offered; nothing is indexed.
In every condition the web and arXiv search tools and specialists are off, dense search is off
(keyword BM25 only: reproducible, and what the suite measures is the agent's use of retrieval,
not the retriever), and add_document / delete_document are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.context import AppContext
from workbench.core.registry import ToolRegistry
from workbench_plugins.retrieval.bench.rag import documents
from workbench_plugins.retrieval.bench.rag.prompts import CONDITIONS
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.specialist import specialist as retrieval_specialist

# the arxiv and websearch plugins' specialists and tools (and any like them by name)
OFF_SPECIALISTS = frozenset({"arxiv", "web", "web_search", "websearch"})
RETRIEVAL_TOOLS = frozenset(retrieval_specialist.tools)


@dataclass(frozen=True)
class Prepared:
    condition: str
    indexed: tuple[str, ...]  # workspace-relative sources in the index
    offered_tools: tuple[str, ...]
    hidden_specialists: tuple[str, ...]


def is_web_tool(name: str, owner: str = "") -> bool:
    """The web and arXiv search tools, whichever plugin offers them."""
    lowered = name.lower()
    named = "arxiv" in lowered or lowered.startswith(("web_", "tavily"))
    return named or owner in OFF_SPECIALISTS


def hidden_specialists(condition: str) -> frozenset[str]:
    return OFF_SPECIALISTS | ({retrieval_specialist.name} if condition == "no_rag" else set())


def prepare(app: AppContext, condition: str) -> Prepared:
    """Set the condition up on `app` (a cell's own context: nothing leaks to the parent)."""
    if condition not in CONDITIONS:
        raise ValueError(f"Unknown rag condition {condition!r}; known: {', '.join(CONDITIONS)}.")
    settings = app.settings.plugin("retrieval", RetrievalSettings)
    locked = settings.model_copy(update={"read_only": True, "dense": "off"})
    app.settings = app.settings.with_plugin("retrieval", locked)  # the cell's copy only
    hidden = hidden_specialists(condition)
    off_tools = {
        tool
        for plugin in app.plugins
        if plugin.specialist is not None and plugin.specialist.name in hidden
        for tool in plugin.specialist.tools
    }
    # an arXiv specialist may share search_documents: it goes only where RAG is off
    off_tools = (
        off_tools | RETRIEVAL_TOOLS if condition == "no_rag" else off_tools - RETRIEVAL_TOOLS
    )
    kept = ToolRegistry(app)
    for name in app.registry.names():
        tool = app.registry.get(name)
        owner = app.registry.owner(name)
        if tool is not None and name not in off_tools and not is_web_tool(name, owner):
            kept.register(tool, owner=owner)
    app.registry = kept
    indexed = documents.build_index(app.store.folder) if condition == "rag" else []
    return Prepared(condition, tuple(indexed), tuple(kept.names()), tuple(sorted(hidden)))
