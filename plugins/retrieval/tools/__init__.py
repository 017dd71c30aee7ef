"""The retrieval specialist's tools: search_documents, add_document, list_documents,
delete_document. Files are confined like every tool's (the workspace, the allowed folders, or a
person's confirmation); in read-only mode (settings `read_only`, for benchmarks) add and delete
are refused.

search.py     search_documents and its passages
documents.py  add_document (and the DocumentsIndexing progress event), list_documents,
              delete_document
support.py    the settings, dense search's status, the workspace's index, source names
"""

from __future__ import annotations

from workbench.core.tools import SideEffect, Tool
from workbench_plugins.retrieval.tools import documents, search


def tools() -> list[Tool]:
    return [
        Tool(
            "search_documents",
            "Search the engineer's indexed documents (papers, reports, datasheets); returns "
            "numbered passages with source file, page and score. Cite source and page.",
            search.SearchArgs,
            search.SearchResult,
            search.search_documents,
            SideEffect.READ,
        ),
        Tool(
            "add_document",
            "Index a PDF, Markdown, text or HTML file, or every such file in a folder "
            "(unchanged files are skipped, changed ones re-indexed).",
            documents.PathArgs,
            documents.AddResult,
            documents.add_document,
            SideEffect.WRITE,
            files=documents.add_paths,
        ),
        Tool(
            "list_documents",
            "The indexed documents: source, type, pages and passages.",
            documents.NoArgs,
            documents.DocumentList,
            documents.list_documents,
            SideEffect.READ,
        ),
        Tool(
            "delete_document",
            "Remove a document from the index (the file itself is kept).",
            documents.PathArgs,
            documents.DeleteResult,
            documents.delete_document,
            SideEffect.WRITE,
        ),
    ]
