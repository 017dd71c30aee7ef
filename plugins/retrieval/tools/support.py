"""What the retrieval tools share: the plugin's settings, dense search's status, the
workspace's index, a path as people read it, and the read-only refusal."""

from __future__ import annotations

from pathlib import Path

from workbench.agents.ollama import ollama_base_url
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index.database import DocumentIndex
from workbench_plugins.retrieval.index.embeddings import DenseStatus, dense_status


def plugin_settings(context: ToolContext) -> RetrievalSettings:
    return context.app.settings.plugin("retrieval", RetrievalSettings)


def dense_of(context: ToolContext, settings: RetrievalSettings) -> DenseStatus:
    return dense_status(settings, ollama_base_url(context.app.settings))


def open_index(context: ToolContext) -> DocumentIndex:
    return DocumentIndex.of_workspace(context.app.store.folder)


def source_name(context: ToolContext, path: str) -> str:
    """A path as people read it: relative to the workspace when inside."""
    workspace = context.app.store.folder.resolve()
    found = Path(path)
    return str(found.relative_to(workspace)) if found.is_relative_to(workspace) else path


def refuse_in_read_only(settings: RetrievalSettings, action: str) -> None:
    if settings.read_only:
        raise ToolFailure(
            f"The document index is read-only here; {action} is refused.",
            "Search it with search_documents. To change it, set read_only = false in "
            "[plugins.retrieval].",
        )
