"""The corpus a cell indexes, written into the cell's own folder, and the queries over it.

The sources are our own Markdown files (package data in sources/). Documents marked `pdf`
in the manifest are rendered to multi-page PDFs at run time, one page per `<!-- page -->`
marker, by matplotlib with TrueType text (extractable, like an exported report) and without a
creation date, so the same sources give byte-identical PDFs and the same sha256s.
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from workbench_plugins.retrieval.bench.quality.scoring import Target

CORPUS_PACKAGE = "workbench_plugins.retrieval.bench.quality.sources"
PAGE_BREAK = "<!-- page -->"
_LINE_CHARACTERS = 96  # what fits across an A4 page in 8 pt monospace, with margins


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    targets: tuple[Target, ...]
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class WrittenCorpus:
    folder: Path
    files: dict[str, str]  # file name -> sha256 of the file as written
    queries_sha256: str

    @property
    def sha256(self) -> str:
        """One digest for everything the scores depend on: every file and the query set."""
        digest = hashlib.sha256()
        for name in sorted(self.files):
            digest.update(f"{name}\0{self.files[name]}\n".encode())
        digest.update(f"queries.json\0{self.queries_sha256}\n".encode())
        return digest.hexdigest()


def _read_package_text(name: str) -> str:
    return resources.files(CORPUS_PACKAGE).joinpath(name).read_text(encoding="utf-8")


def manifest() -> list[dict[str, Any]]:
    documents: list[dict[str, Any]] = json.loads(_read_package_text("manifest.json"))["documents"]
    return documents


def queries() -> list[Query]:
    data = json.loads(_read_package_text("queries.json"))
    return [
        Query(
            id=str(item["id"]),
            text=str(item["query"]),
            targets=tuple(Target.from_json(target) for target in item["relevant"]),
            tags=tuple(item.get("tags", ())),
        )
        for item in data["queries"]
    ]


def queries_sha256() -> str:
    return hashlib.sha256(_read_package_text("queries.json").encode()).hexdigest()


def pages_of(markdown: str) -> list[str]:
    """The text of each PDF page: Markdown split at the page markers, heading marks dropped,
    prose wrapped to the page width, table rows kept whole."""
    pages = []
    for page in markdown.split(PAGE_BREAK):
        lines: list[str] = []
        for line in page.strip().splitlines():
            line = line.lstrip("#").strip() if line.startswith("#") else line.rstrip()
            if line.startswith("|") or not line:
                lines.append(line)
            else:
                lines.extend(textwrap.wrap(line, _LINE_CHARACTERS))
        pages.append("\n".join(lines))
    return pages


def render_pdf(markdown: str, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.backends.backend_pdf import PdfPages

    # no creation date and fixed producer: the same text always gives the same bytes
    metadata = {"CreationDate": None, "Creator": "workbench retrieval-quality corpus"}
    with (
        matplotlib.rc_context({"pdf.fonttype": 42, "svg.hashsalt": "corpus"}),
        PdfPages(path, metadata=metadata) as pdf,
    ):
        for number, text in enumerate(pages_of(markdown), start=1):
            figure = pyplot.figure(figsize=(8.27, 11.69))
            figure.text(0.07, 0.95, text, va="top", fontsize=8, family="DejaVu Sans Mono")
            figure.text(0.5, 0.03, f"Page {number}", ha="center", fontsize=8)
            pdf.savefig(figure)
            pyplot.close(figure)
    return path


def write_corpus(folder: Path) -> WrittenCorpus:
    """Every corpus document into `folder` (PDF or Markdown, named by its id), with sha256s."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    for document in manifest():
        source = _read_package_text(str(document["source"]))
        if document["format"] == "pdf":
            path = render_pdf(source, folder / f"{document['id']}.pdf")
        else:
            path = folder / f"{document['id']}.md"
            path.write_text(source, encoding="utf-8")
        files[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return WrittenCorpus(folder, files, queries_sha256())
