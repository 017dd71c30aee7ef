"""What the Documents view does with the index, without Qt: list, add (with progress and a
cancel), delete, search, and read one page back. Every call opens its own connection, so it runs
on whichever worker thread calls it (a SQLite connection belongs to one thread)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.agents.ollama import ollama_base_url
from workbench.core.context import AppContext
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index.adding import (
    Chunking,
    FileOutcome,
    add_file,
    folder_files,
)
from workbench_plugins.retrieval.index.database import DocumentIndex, DocumentInfo
from workbench_plugins.retrieval.index.embeddings import (
    DenseStatus,
    Embedder,
    OfflineEmbedder,
    dense_status,
    offline_loaded,
)
from workbench_plugins.retrieval.index.loaders import DocumentError, Segment, load
from workbench_plugins.retrieval.index.search import Hit, SearchError, search

# called before and after each file: (files done, files in all, the file being read or done)
Progress = Callable[[int, int, Path], None]


class Cancelled(Exception):
    """The person pressed Cancel; the files indexed so far stay."""


@dataclass
class AddReport:
    """What an Add did, for the status line: files indexed, unchanged, failed with why."""

    done: list[FileOutcome] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)  # (file, what to do)
    skipped: list[Path] = field(default_factory=list)  # types the index does not read
    cancelled: bool = False

    def summary(self) -> str:
        indexed = sum(1 for f in self.done if f.status != "unchanged")
        unchanged = len(self.done) - indexed
        parts = [f"{indexed} indexed"]
        if unchanged:
            parts.append(f"{unchanged} unchanged")
        if self.failed:
            parts.append(f"{len(self.failed)} could not be read")
        if self.skipped:
            parts.append(f"{len(self.skipped)} of other types left out")
        text = ", ".join(parts) + "."
        return ("Cancelled: " + text) if self.cancelled else text


@dataclass(frozen=True)
class Modes:
    """Which search modes run now; `why_not` says why dense and fused do not."""

    embedder: Embedder | None
    reason: str

    @property
    def dense(self) -> bool:
        return self.embedder is not None


@dataclass(frozen=True)
class PageText:
    """The text of the place a hit cites: a PDF page, or a section of another document."""

    source: str
    page: int | None
    section: str
    text: str
    note: str = ""  # when the original could not be read and the index's text stands in


class DocumentsBackend:
    def __init__(self, context: AppContext) -> None:
        self.context = context
        self.workspace = Path(context.store.folder).resolve()
        self._modes: Modes | None = None
        self._lock = threading.Lock()

    # -- where things are ----------------------------------------------------------------------
    def settings(self) -> RetrievalSettings:
        return self.context.settings.plugin("retrieval", RetrievalSettings)

    def source(self, path: str | Path) -> str:
        """A path as the tools print it: relative to the workspace when inside."""
        found = Path(path)
        return (
            str(found.relative_to(self.workspace))
            if found.is_relative_to(self.workspace)
            else str(found)
        )

    def path(self, source: str) -> Path:
        """The file a source (as the tools print it) names."""
        found = Path(source).expanduser()
        return found if found.is_absolute() else self.workspace / found

    def _index(self) -> DocumentIndex:
        return DocumentIndex.of_workspace(self.workspace)

    # -- the index -----------------------------------------------------------------------------
    def documents(self) -> list[DocumentInfo]:
        with self._index() as index:
            return index.documents()

    def modes(self, refresh: bool = False) -> Modes:
        """Probes Ollama (up to a second and a half): call it on a worker."""
        with self._lock:
            if self._modes is None or refresh:
                status: DenseStatus = dense_status(
                    self.settings(), ollama_base_url(self.context.settings)
                )
                self._modes = Modes(status.embedder, status.reason)
            return self._modes

    def add(
        self, paths: Sequence[Path], progress: Progress, cancelled: Callable[[], bool]
    ) -> AddReport:
        """Index `paths` (files, or folders: every readable file inside); a file that fails is
        reported and the rest go on; Cancel stops between files."""
        settings = self.settings()
        if settings.read_only:
            raise DocumentError(
                "The document index is read-only here.",
                "Set read_only = false in [plugins.retrieval] to add documents.",
            )
        report = AddReport()
        files: list[Path] = []
        for path in paths:
            if path.is_dir():
                readable, other = folder_files(path)
                files += readable
                report.skipped += other
            else:
                files.append(path)
        chunking = Chunking(settings.chunk_words, settings.overlap_words)
        embedder = self.modes().embedder
        with self._index() as index:
            for done, file in enumerate(files, start=1):
                if cancelled():
                    report.cancelled = True
                    break
                progress(done - 1, len(files), file)  # reading `file` now
                try:
                    added = add_file(
                        index,
                        file,
                        chunking=chunking,
                        embedder=embedder,
                        max_bytes=settings.max_bytes,
                    )
                    report.done.append(added)
                except DocumentError as error:
                    report.failed.append((file, _human(error)))
                except OSError as error:  # unreadable: permissions, vanished meanwhile
                    report.failed.append((file, f"Cannot read {file.name}: {error.strerror}."))
                progress(done, len(files), file)
        return report

    def delete(self, source: str) -> int:
        """Remove a document from the index (the file stays); returns its passages."""
        if self.settings().read_only:
            raise DocumentError(
                "The document index is read-only here.",
                "Set read_only = false in [plugins.retrieval] to delete documents.",
            )
        with self._index() as index:
            info = index.document(str(self.path(source)))
            if info is None or not index.delete(info.path):
                raise DocumentError(f"{source} is not in the index.", "Refresh the list.")
            return info.chunks

    def model_to_load(self, mode: str) -> bool:
        """Whether a `mode` search must first load the offline model (tens of seconds, once per
        process). Only from modes already probed: never blocks."""
        modes = self._modes
        return (
            mode != "keyword"
            and modes is not None
            and isinstance(modes.embedder, OfflineEmbedder)
            and not offline_loaded()
        )

    def load_model(self) -> None:
        """Load the search model (blocking: on a worker)."""
        embedder = self.modes().embedder
        if embedder is not None:
            embedder.query("load")

    def search(self, query: str, mode: str, limit: int = 20) -> list[Hit]:
        embedder = self.modes().embedder if mode != "keyword" else None
        with self._index() as index:
            try:
                return search(index, query, mode, limit, embedder)  # type: ignore[arg-type]
            except SearchError as error:
                raise DocumentError(
                    f"{mode.capitalize()} search failed: {error}.", "Use keyword search."
                ) from error

    def page_text(self, source: str, page: int | None, section: str, fallback: str) -> PageText:
        """The whole page (PDF) or section the hit is on, read from the original file; the hit's
        own passage when the file is gone or changed so that the place no longer exists."""
        path = self.path(source)
        try:
            segments = _page_segments(path, page) if page else load(path).segments
        except (DocumentError, OSError) as error:
            why = error.message if isinstance(error, DocumentError) else str(error)
            return PageText(source, page, section, fallback, f"Showing the indexed passage: {why}")
        wanted = [s.text for s in segments if (s.page == page if page else s.section == section)]
        if not any(text.strip() for text in wanted):
            note = "The file changed since it was indexed; showing the indexed passage."
            return PageText(source, page, section, fallback, note)
        return PageText(source, page, section, "\n\n".join(wanted))


def _page_segments(path: Path, page: int) -> list[Segment]:
    """One PDF page, without reading the others (a report may have hundreds)."""
    if path.suffix.lower() != ".pdf":
        return load(path).segments
    from pypdf import PdfReader

    if not path.is_file():
        raise DocumentError(f"{path.name} is no longer there ({path}).", "Add it again.")
    try:
        reader = PdfReader(path)
        if page > len(reader.pages):
            raise DocumentError(f"{path.name} has {len(reader.pages)} pages, not {page}.")
        text = reader.pages[page - 1].extract_text() or ""
    except DocumentError:
        raise
    except Exception as error:  # pypdf raises many kinds on a damaged file
        raise DocumentError(f"{path.name} cannot be read now ({error}).") from error
    return [Segment(text, page=page)]


def _human(error: DocumentError) -> str:
    return f"{error.message} {error.hint}".strip()
