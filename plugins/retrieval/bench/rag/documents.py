"""The rag-beams2d reference documents: written for this suite, so no model knows their values.

- beams2d_design_guide.md: the lab's house default volume fraction; bracket CB-7's settings.
- cantilever_test_campaign_report.md: campaign TC-3's settings; indexed as a PDF made at run
  time (one section a page), so a hit carries a page number.
- kickoff_meeting_notes.md: the distractor, superseded proposals with plausible wrong values.

`materialise` writes them into a cell's workspace; `build_index` indexes them there.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

from workbench_plugins.retrieval.index.adding import add_file
from workbench_plugins.retrieval.index.database import DocumentIndex

SOURCE_FOLDER = Path(__file__).resolve().parent / "sources"
GUIDE = "beams2d_design_guide.md"
REPORT = "cantilever_test_campaign_report.md"
NOTES = "kickoff_meeting_notes.md"
AS_PDF = (REPORT,)  # indexed as generated PDFs, not as Markdown
FOLDER = "documents"  # inside the cell's workspace


def source(name: str) -> Path:
    path = SOURCE_FOLDER / name
    if not path.is_file():
        raise FileNotFoundError(
            f"The rag-beams2d reference document {name} is missing from {SOURCE_FOLDER}; "
            "reinstall workbench (the documents are package data)."
        )
    return path


def pages_of(markdown: str) -> list[str]:
    """One page per second-level section; the title and introduction make the first page."""
    pages: list[list[str]] = [[]]
    for line in markdown.splitlines():
        if line.startswith("## "):
            pages.append([])
        pages[-1].append(line.lstrip("# ") if line.startswith("#") else line)
    return ["\n".join(page).strip() for page in pages if "".join(page).strip()]


def write_pdf(markdown: str, path: Path, title: str) -> Path:
    """A real text PDF (TrueType fonts keep the text extractable, as a word processor's)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot
    from matplotlib.backends.backend_pdf import PdfPages

    with matplotlib.rc_context({"pdf.fonttype": 42}), PdfPages(path) as pdf:
        for number, page in enumerate(pages_of(markdown), start=1):
            paragraphs = [" ".join(block.split()) for block in page.split("\n\n")]
            body = "\n\n".join("\n".join(textwrap.wrap(p, 88)) for p in paragraphs)
            figure = pyplot.figure(figsize=(8.27, 11.69))
            figure.text(0.08, 0.95, body, va="top", fontsize=10, family="DejaVu Sans")
            figure.text(0.5, 0.03, f"{title}, page {number}", ha="center", fontsize=8)
            pdf.savefig(figure)
            pyplot.close(figure)
    return path


def materialise(workspace: Path) -> list[Path]:
    """Write the reference documents into `workspace`/documents; the report as a PDF."""
    folder = workspace / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in (GUIDE, REPORT, NOTES):
        if name in AS_PDF:
            pdf = folder / Path(name).with_suffix(".pdf").name
            written.append(write_pdf(source(name).read_text(encoding="utf-8"), pdf, "TC-3"))
        else:
            written.append(Path(shutil.copyfile(source(name), folder / name)))
    return written


def build_index(workspace: Path) -> list[str]:
    """Index the reference documents in `workspace`'s document index; their sources."""
    paths = materialise(workspace)
    with DocumentIndex.of_workspace(workspace) as index:
        for path in paths:
            add_file(index, path)
    return [str(path.relative_to(workspace)) for path in paths]
