"""The retrieval specialist's tools: search_documents, add_document, list_documents,
delete_document. Files are confined like every tool's (the workspace, the allowed folders, or a
person's confirmation); in read-only mode (settings `read_only`, for benchmarks) add and delete
are refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from workbench.agents.ollama import ollama_base_url
from workbench.core.events import Event
from workbench.core.files import PathRefused
from workbench.core.tools import SideEffect, Tool, ToolContext, ToolFailure
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index.adding import Chunking, FolderOutcome, add_file, add_folder
from workbench_plugins.retrieval.index.database import DocumentIndex, DocumentInfo
from workbench_plugins.retrieval.index.embeddings import DenseStatus, dense_status
from workbench_plugins.retrieval.index.search import SearchError, search


class DocumentsIndexing(Event):
    """A folder import's progress (a view or the headless output shows it)."""

    source: str = "retrieval"
    done: int
    total: int
    file: str


class SearchArgs(BaseModel):
    query: str = Field(..., min_length=1, description="What to look for, in plain words")
    num_results: int = Field(5, ge=1, le=20, description="How many passages to return")
    mode: Literal["auto", "keyword", "dense", "fused"] = Field(
        "auto", description="auto: fused when an embedding model is available, else keyword"
    )


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


class PathArgs(BaseModel):
    path: str = Field(..., min_length=1, description="A file or folder (workspace-relative ok)")


class Document(BaseModel):
    source: str
    kind: str
    pages: int
    passages: int
    size: int
    sha256: str


class AddResult(BaseModel):
    message: str
    added: list[str] = []
    updated: list[str] = []
    unchanged: list[str] = []
    failed: list[str] = Field(default=[], description="'file: why' for each file not indexed")
    skipped_types: int = Field(0, description="Files of types the index does not read")


class NoArgs(BaseModel):
    pass


class DocumentList(BaseModel):
    count: int
    documents: list[Document]


class DeleteResult(BaseModel):
    deleted: str
    passages: int


def _settings(context: ToolContext) -> RetrievalSettings:
    return context.app.settings.plugin("retrieval", RetrievalSettings)


def _dense(context: ToolContext, settings: RetrievalSettings) -> DenseStatus:
    return dense_status(settings, ollama_base_url(context.app.settings))


def _index(context: ToolContext) -> DocumentIndex:
    return DocumentIndex.of_workspace(context.app.store.folder)


def _source(context: ToolContext, path: str) -> str:
    """A path as people read it: relative to the workspace when inside."""
    workspace = context.app.store.folder.resolve()
    found = Path(path)
    return str(found.relative_to(workspace)) if found.is_relative_to(workspace) else path


def _refuse_in_read_only(settings: RetrievalSettings, action: str) -> None:
    if settings.read_only:
        raise ToolFailure(
            f"The document index is read-only here; {action} is refused.",
            "Search it with search_documents. To change it, set read_only = false in "
            "[plugins.retrieval].",
        )


def search_documents(args: SearchArgs, context: ToolContext) -> SearchResult:
    settings = _settings(context)
    dense = _dense(context, settings) if args.mode != "keyword" else DenseStatus(None, "")
    mode = args.mode if args.mode != "auto" else ("fused" if dense.embedder else "keyword")
    note = "" if dense.embedder or args.mode == "keyword" else f"keyword only: {dense.reason}"
    with _index(context) as index:
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
            source=_source(context, hit.passage.path),
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


def add_paths(args: PathArgs, context: ToolContext) -> Path:
    return context.file(args.path, mode="read")


def add_document(args: PathArgs, context: ToolContext) -> AddResult:
    settings = _settings(context)
    _refuse_in_read_only(settings, "add_document")
    path = context.file(args.path, mode="read")
    if not path.exists():
        raise ToolFailure(f"{args.path} does not exist ({path}).", "Check the path.")
    chunking = Chunking(settings.chunk_words, settings.overlap_words)
    embedder = _dense(context, settings).embedder
    with _index(context) as index:
        if path.is_file():
            single = add_file(index, path, chunking=chunking, embedder=embedder)
            outcome = FolderOutcome(path.parent, files=[single])
        else:

            def report(done: int, total: int, file: Path) -> None:
                context.app.bus.publish(DocumentsIndexing(done=done, total=total, file=str(file)))

            outcome = add_folder(
                index,
                path,
                chunking=chunking,
                embedder=embedder,
                progress=report,
                refuse=_leads_out(context, path),
            )
    return _added(context, outcome)


def _leads_out(context: ToolContext, folder: Path) -> Callable[[Path], str]:
    """A file in a folder being added must stay in that folder or the confinement: a link
    inside it to anywhere else would read a file nobody confirmed."""
    confinement = context.confinement()

    def refuse(file: Path) -> str:
        real = file.resolve()
        if real.is_relative_to(folder):
            return ""
        try:
            inside = not confinement.check(real, base=folder, mode="read").outside
        except PathRefused as refused:
            return refused.message
        if inside:
            return ""
        return f"{file.name} is a link to {real}, outside the folder; add that file by its path."

    return refuse


def _added(context: ToolContext, outcome: FolderOutcome) -> AddResult:
    def named(status: str) -> list[str]:
        return [_source(context, str(f.path)) for f in outcome.files if f.status == status]

    result = AddResult(
        message="",
        added=named("added"),
        updated=named("updated"),
        unchanged=named("unchanged"),
        failed=[f"{_source(context, str(path))}: {why}" for path, why in outcome.failed],
        skipped_types=len(outcome.skipped),
    )
    passages = sum(f.info.chunks for f in outcome.files if f.status != "unchanged")
    result.message = (
        f"{len(result.added)} added, {len(result.updated)} re-indexed, "
        f"{len(result.unchanged)} unchanged ({passages} new passages); "
        f"{len(result.failed)} failed, {result.skipped_types} of unsupported types skipped."
    )
    return result


def _document(context: ToolContext, info: DocumentInfo) -> Document:
    return Document(
        source=_source(context, info.path),
        kind=info.kind,
        pages=info.pages,
        passages=info.chunks,
        size=info.size,
        sha256=info.sha256,
    )


def list_documents(_: NoArgs, context: ToolContext) -> DocumentList:
    with _index(context) as index:
        documents = [_document(context, info) for info in index.documents()]
    return DocumentList(count=len(documents), documents=documents)


def delete_document(args: PathArgs, context: ToolContext) -> DeleteResult:
    _refuse_in_read_only(_settings(context), "delete_document")
    # only the index changes, never the file: the path needs no confirmation, only resolving
    access = context.confinement().check(args.path, base=context.app.store.folder, mode="read")
    with _index(context) as index:
        info = index.document(str(access.path))
        if info is None or not index.delete(info.path):
            listed = ", ".join(_source(context, d.path) for d in index.documents()[:10])
            raise ToolFailure(
                f"{args.path} is not in the document index.",
                f"Indexed: {listed or 'nothing'}. Use a source as list_documents shows it.",
            )
    return DeleteResult(deleted=_source(context, info.path), passages=info.chunks)


def tools() -> list[Tool]:
    return [
        Tool(
            "search_documents",
            "Search the engineer's indexed documents (papers, reports, datasheets); returns "
            "numbered passages with source file, page and score. Cite source and page.",
            SearchArgs,
            SearchResult,
            search_documents,
            SideEffect.READ,
        ),
        Tool(
            "add_document",
            "Index a PDF, Markdown, text or HTML file, or every such file in a folder "
            "(unchanged files are skipped, changed ones re-indexed).",
            PathArgs,
            AddResult,
            add_document,
            SideEffect.WRITE,
            files=add_paths,
        ),
        Tool(
            "list_documents",
            "The indexed documents: source, type, pages and passages.",
            NoArgs,
            DocumentList,
            list_documents,
            SideEffect.READ,
        ),
        Tool(
            "delete_document",
            "Remove a document from the index (the file itself is kept).",
            PathArgs,
            DeleteResult,
            delete_document,
            SideEffect.WRITE,
        ),
    ]
