"""Retrieval: index the engineer's own documents in the workspace and search them with citations.

index/            no Qt: loaders, chunking, the SQLite FTS5 + vector database, adding, search
specialist.py     the retrieval specialist (cites source and page)
tools/            search.py (search_documents), documents.py (add_document, list_documents,
                  delete_document), support.py (settings, the index, source names)
config.py         settings ([plugins.retrieval]): read-only mode, dense search, chunk size
doctor_checks.py  which search modes are active and why
commands.py       headless indexing with a progress bar (`workbench --headless retrieval add`)
views/            the Documents view (Qt): documents, add with progress, search, a hit's page
perf.py           indexing and query latency against pypdf's bare text extraction
bench/            two suites: quality/ (retrieval-quality, its corpus in corpus/) and rag/
                  (rag-beams2d, its documents in rag_documents/)
sample_pdf.py     generated PDFs with one distinct fact per page (tests, perf.py)
"""

from workbench.core.plugins import Plugin, ViewSpec
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.specialist import specialist

plugin = Plugin(
    name="retrieval",
    title="Documents",
    description="Index PDFs, Markdown, text and HTML in the workspace; search them with citations.",
    tools="workbench_plugins.retrieval.tools:tools",
    suites="workbench_plugins.retrieval.bench:suites",
    specialist=specialist,
    settings=RetrievalSettings,
    checks="workbench_plugins.retrieval.doctor_checks:checks",
    commands="workbench_plugins.retrieval.commands:commands",
    views=(
        ViewSpec(
            name="documents",
            title="Documents",
            factory="workbench_plugins.retrieval.views:documents_view",
            shows=("search_documents", "add_document", "list_documents", "delete_document"),
        ),
    ),
)
