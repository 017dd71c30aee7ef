"""Add a file or a folder to the index: load, cut, embed, then write each file in one transaction.

A file whose sha256 matches what the index holds is skipped, a changed one replaces its old
passages; so a folder import that was interrupted resumes where it stopped, without duplicates.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from workbench.core.store import sha256_of_file
from workbench_plugins.retrieval.index.chunking import chunk
from workbench_plugins.retrieval.index.database import DocumentIndex, DocumentInfo
from workbench_plugins.retrieval.index.embeddings import Embedder, EmbeddingError
from workbench_plugins.retrieval.index.loaders import SUFFIXES, DocumentError, load

log = logging.getLogger(__name__)
Status = Literal["added", "updated", "unchanged"]
# called after each file of a folder: (files done, files in all, the file just done)
Progress = Callable[[int, int, Path], None]


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


def add_file(
    index: DocumentIndex,
    path: Path,
    *,
    chunking: Chunking = Chunking(),
    embedder: Embedder | None = None,
) -> FileOutcome:
    """Index `path` (or leave it as it is when unchanged); DocumentError leaves the index as it
    was."""
    path = path.resolve()
    sha = sha256_of_file(path) if path.is_file() else ""
    known = index.document(str(path))
    if known is not None and known.sha256 == sha:
        return FileOutcome(path, "unchanged", known)
    loaded = load(path)
    chunks = chunk(loaded.segments, chunking.words, chunking.overlap)
    vectors = None
    if embedder is not None:
        try:
            vectors = (embedder.name, embedder.passages([c.text for c in chunks]))
        except EmbeddingError as error:  # search embeds the missing passages later
            log.warning("%s: indexed without vectors: %s", path.name, error)
    info = DocumentInfo(
        str(path), sha, loaded.kind, loaded.pages, len(chunks), path.stat().st_size, 0.0
    )
    index.replace(info, chunks, vectors)
    stored = index.document(str(path)) or info
    return FileOutcome(path, "added" if known is None else "updated", stored, vectors is not None)


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
) -> FolderOutcome:
    """Index every readable file under `folder`; a file that fails is reported, not fatal.

    An exception from `progress` (a cancel) stops the import: the files done so far stay.
    `refuse` says why a file must not be read (a link leading elsewhere), or "" to read it."""
    readable, other = folder_files(folder)
    outcome = FolderOutcome(folder, skipped=other)
    for done, path in enumerate(readable, start=1):
        why = refuse(path) if refuse is not None else ""
        try:
            if why:
                raise DocumentError(why)
            outcome.files.append(add_file(index, path, chunking=chunking, embedder=embedder))
        except DocumentError as error:
            outcome.failed.append((path, error.message))
        if progress is not None:
            progress(done, len(readable), path)
    return outcome
