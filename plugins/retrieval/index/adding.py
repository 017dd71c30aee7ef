"""Add a file or a folder to the index: load, cut, embed, then write each file in one transaction.

A file whose sha256 matches what the index holds is skipped, a changed one replaces its old
passages; so a folder import that was interrupted resumes where it stopped, without duplicates.
A file over the size limit is refused before it is read. A `Watch` follows each file's steps
(reading, cutting, embedding batch by batch, writing) and may cancel at any of them: the file
being added is then left as the index had it, the files done before it stay.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from workbench_plugins.retrieval.index.chunking import Chunk, chunk
from workbench_plugins.retrieval.index.database import DocumentIndex, DocumentInfo
from workbench_plugins.retrieval.index.embeddings import Embedder, EmbeddingError
from workbench_plugins.retrieval.index.loaders import (
    SUFFIXES,
    DocumentError,
    load,
    read_document,
)

log = logging.getLogger(__name__)
Status = Literal["added", "updated", "unchanged"]
# called after each file of a folder: (files done, files in all, the file just done)
Progress = Callable[[int, int, Path], None]
DEFAULT_MAX_BYTES = 20_000_000  # RetrievalSettings.max_document_mb's default
LIMIT_NAMED = "max_document_mb in [plugins.retrieval]"  # what a refusal names
EMBED_BATCH = 64  # passages embedded between two reports (and cancel checks)


class IndexingCancelled(Exception):
    """A person stopped an add while `file` was being read; the index has it as before."""

    def __init__(self, file: Path) -> None:
        super().__init__(f"cancelled while adding {file}")
        self.file = file


def _no_report(fraction: float, step: str) -> None:
    pass


def _never() -> bool:
    return False


@dataclass(frozen=True)
class Watch:
    """Follows one add: `report(fraction of the work, step)` before each step, `cancelled()`
    asked there too (True raises IndexingCancelled before the step starts)."""

    report: Callable[[float, str], None] = _no_report
    cancelled: Callable[[], bool] = _never

    def step(self, file: Path, fraction: float, what: str) -> None:
        if self.cancelled():
            raise IndexingCancelled(file)
        self.report(fraction, what)

    def within(self, start: float, share: float, prefix: str) -> Watch:
        """This watch for one part of the work (a file of a folder): its fractions scaled."""
        return Watch(
            lambda fraction, what: self.report(start + share * fraction, f"{prefix}{what}"),
            self.cancelled,
        )


@dataclass(frozen=True)
class Chunking:
    words: int = 220
    overlap: int = 40


@dataclass(frozen=True)
class FileOutcome:
    path: Path
    status: Status
    info: DocumentInfo
    embedded: bool = False


@dataclass
class FolderOutcome:
    folder: Path
    files: list[FileOutcome] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)  # (file, why)
    skipped: list[Path] = field(default_factory=list)  # types the index does not read
    cancelled: Path | None = None  # the file being read when a cancel stopped the import


def add_file(
    index: DocumentIndex,
    path: Path,
    *,
    chunking: Chunking = Chunking(),
    embedder: Embedder | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    watch: Watch = Watch(),
) -> FileOutcome:
    """Index `path` (or leave it as it is when unchanged); DocumentError (a file over
    `max_bytes` too) and IndexingCancelled leave the index as it was."""
    path = path.resolve()
    watch.step(path, 0.0, f"reading {path.name}")
    data = read_document(path, max_bytes, LIMIT_NAMED)
    sha = hashlib.sha256(data).hexdigest()
    known = index.document(str(path))
    if known is not None and known.sha256 == sha:
        return FileOutcome(path, "unchanged", known)
    loaded = load(path, data)
    watch.step(path, 0.05, "cutting into passages")
    chunks = chunk(loaded.segments, chunking.words, chunking.overlap)
    vectors = _embedded(chunks, embedder, path, watch) if embedder is not None else None
    info = DocumentInfo(str(path), sha, loaded.kind, loaded.pages, len(chunks), len(data), 0.0)
    written = 0.7 if embedder is not None else 0.1  # where writing starts

    def on_rows(done: int, total: int) -> None:
        watch.step(path, written + (0.99 - written) * done / total, f"writing {done}/{total}")

    index.replace(info, chunks, vectors, on_rows=on_rows)
    stored = index.document(str(path)) or info
    return FileOutcome(path, "added" if known is None else "updated", stored, vectors is not None)


def _embedded(
    chunks: list[Chunk], embedder: Embedder, path: Path, watch: Watch
) -> tuple[str, np.ndarray] | None:
    """The passages' vectors, a batch at a time (each batch a step that may cancel); None when
    the embedder fails (search embeds the missing passages later)."""
    parts: list[np.ndarray] = []
    texts = [c.text for c in chunks]
    try:
        for start in range(0, len(texts), EMBED_BATCH):
            watch.step(path, 0.1 + 0.6 * start / len(texts), f"embedding {start}/{len(texts)}")
            parts.append(embedder.passages(texts[start : start + EMBED_BATCH]))
    except EmbeddingError as error:
        log.warning("%s: indexed without vectors: %s", path.name, error)
        return None
    return (embedder.name, np.vstack(parts)) if parts else None


def folder_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """(files the index reads, other files) under `folder`, sorted; hidden folders left out
    (the index's own database lives in one)."""
    readable: list[Path] = []
    other: list[Path] = []
    for root, folders, names in os.walk(folder):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = Path(root) / name
            (readable if path.suffix.lower() in SUFFIXES else other).append(path)
    return readable, other


def add_folder(
    index: DocumentIndex,
    folder: Path,
    *,
    chunking: Chunking = Chunking(),
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    refuse: Callable[[Path], str] | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    watch: Watch = Watch(),
) -> FolderOutcome:
    """Index every readable file under `folder`; a file that fails is reported, not fatal.

    A cancel (`watch`, or an exception from `progress`) stops the import: the files done so far
    stay, the one being read is left as it was (`cancelled` names it).
    `refuse` says why a file must not be read (a link leading elsewhere), or "" to read it."""
    readable, other = folder_files(folder)
    outcome = FolderOutcome(folder, skipped=other)
    for done, path in enumerate(readable, start=1):
        why = refuse(path) if refuse is not None else ""
        share = 1 / len(readable)
        part = watch.within((done - 1) * share, share, f"{path.name}: ")
        try:
            if why:
                raise DocumentError(why)
            outcome.files.append(
                add_file(
                    index,
                    path,
                    chunking=chunking,
                    embedder=embedder,
                    max_bytes=max_bytes,
                    watch=part,
                )
            )
        except DocumentError as error:
            outcome.failed.append((path, error.message))
        except IndexingCancelled:
            outcome.cancelled = path
            return outcome
        if progress is not None:
            progress(done, len(readable), path)
    return outcome
