"""add_document, list_documents, delete_document: what is in the index. Files are confined like
every tool's; in read-only mode add and delete are refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from workbench.core.events import Event
from workbench.core.files import PathRefused
from workbench.core.tools import ToolContext, ToolFailure
from workbench_plugins.retrieval.index.adding import (
    Chunking,
    FolderOutcome,
    IndexingCancelled,
    add_file,
    add_folder,
)
from workbench_plugins.retrieval.index.database import DocumentInfo
from workbench_plugins.retrieval.tools.indexing_job import IndexingJob
from workbench_plugins.retrieval.tools.support import (
    dense_of,
    open_index,
    plugin_settings,
    refuse_in_read_only,
    source_name,
)


class DocumentsIndexing(Event):
    """A folder import's progress (a view or the headless output shows it)."""

    source: str = "retrieval"
    done: int
    total: int
    file: str


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


def add_paths(args: PathArgs, context: ToolContext) -> Path:
    return context.file(args.path, mode="read")


def add_document(args: PathArgs, context: ToolContext) -> AddResult:
    settings = plugin_settings(context)
    refuse_in_read_only(settings, "add_document")
    path = context.file(args.path, mode="read")
    if not path.exists():
        raise ToolFailure(f"{args.path} does not exist ({path}).", "Check the path.")
    chunking = Chunking(settings.chunk_words, settings.overlap_words)
    embedder = dense_of(context, settings).embedder
    limit = settings.max_bytes
    outcome = FolderOutcome(path if path.is_dir() else path.parent)
    try:
        with open_index(context) as index, IndexingJob(context, f"Indexing {path.name}") as job:
            if path.is_file():
                single = add_file(
                    index,
                    path,
                    chunking=chunking,
                    embedder=embedder,
                    max_bytes=limit,
                    watch=job.watch,
                )
                outcome.files.append(single)
            else:

                def report(done: int, total: int, file: Path) -> None:
                    context.app.bus.publish(
                        DocumentsIndexing(done=done, total=total, file=str(file))
                    )

                outcome = add_folder(
                    index,
                    path,
                    chunking=chunking,
                    embedder=embedder,
                    progress=report,
                    refuse=_leads_out(context, path),
                    max_bytes=limit,
                    watch=job.watch,
                )
                if outcome.cancelled is not None:  # the job ends cancelled, not done
                    raise IndexingCancelled(outcome.cancelled)
    except IndexingCancelled as cancelled:
        done = _added(context, outcome).message
        raise ToolFailure(
            f"add_document was cancelled while reading {source_name(context, str(cancelled.file))}"
            f"; that file is as the index had it before. Done before the cancel: {done}",
            "Add the same path again to go on: files already indexed are skipped.",
        ) from None
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
        return [source_name(context, str(f.path)) for f in outcome.files if f.status == status]

    result = AddResult(
        message="",
        added=named("added"),
        updated=named("updated"),
        unchanged=named("unchanged"),
        failed=[f"{source_name(context, str(path))}: {why}" for path, why in outcome.failed],
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
        source=source_name(context, info.path),
        kind=info.kind,
        pages=info.pages,
        passages=info.chunks,
        size=info.size,
        sha256=info.sha256,
    )


def list_documents(_: NoArgs, context: ToolContext) -> DocumentList:
    with open_index(context) as index:
        documents = [_document(context, info) for info in index.documents()]
    return DocumentList(count=len(documents), documents=documents)


def delete_document(args: PathArgs, context: ToolContext) -> DeleteResult:
    refuse_in_read_only(plugin_settings(context), "delete_document")
    # only the index changes, never the file: the path needs no confirmation, only resolving
    access = context.confinement().check(args.path, base=context.app.store.folder, mode="read")
    with open_index(context) as index:
        info = index.document(str(access.path))
        if info is None or not index.delete(info.path):
            listed = ", ".join(source_name(context, d.path) for d in index.documents()[:10])
            raise ToolFailure(
                f"{args.path} is not in the document index.",
                f"Indexed: {listed or 'nothing'}. Use a source as list_documents shows it.",
            )
    return DeleteResult(deleted=source_name(context, info.path), passages=info.chunks)
