"""Read a document into segments of text, each with its page (PDF) or section (Markdown, HTML).

Every failure a person can fix raises DocumentError naming the file, what is wrong and what to
do; nothing is written before a file has loaded whole, so a failure leaves the index unchanged.
"""

from __future__ import annotations

import io
import logging
import os
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from workbench.core.files import PathRefused, open_checked
from workbench.core.tool_errors import ToolFailure

SUFFIXES = {
    ".pdf": "pdf",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".rst": "text",
    ".html": "html",
    ".htm": "html",
}
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SNIFF_BYTES = 8192


class DocumentError(ToolFailure):
    """A file that cannot be indexed; the index is left as it was."""


@dataclass(frozen=True)
class Segment:
    text: str
    page: int | None = None  # 1-based PDF page
    section: str = ""  # heading path, "Design > Loads"


@dataclass(frozen=True)
class Loaded:
    kind: str
    segments: list[Segment]
    pages: int  # PDF pages; 0 for other kinds


def kind_of(path: Path) -> str:
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise DocumentError(
            f"Cannot index {path.name}: {path.suffix or 'no suffix'} is not a supported type.",
            "Supported: " + ", ".join(sorted(SUFFIXES)) + ". Convert the file to one of them.",
        )
    return kind


def read_document(path: Path, max_bytes: int | None, limit_named: str = "") -> bytes:
    """The bytes of `path` (checked and resolved): opened without following a link put there
    since the check, its size checked on what was opened before anything is read."""
    kind_of(path)
    if not path.is_file():
        raise DocumentError(f"Cannot index {path}: no such file.", "Check the path.")
    try:
        with open_checked(path) as opened:
            size = os.fstat(opened.fileno()).st_size
            if max_bytes is not None and size > max_bytes:
                raise DocumentError(
                    f"Cannot index {path.name}: it is {size / 1e6:.1f} MB, over the limit of "
                    f"{max_bytes / 1e6:g} MB{f' ({limit_named})' if limit_named else ''}.",
                    "Split it into smaller files"
                    + (f", or raise {limit_named} if it is one document." if limit_named else "."),
                )
            # a file growing meanwhile is read no further than the limit
            data: bytes = opened.read(-1 if max_bytes is None else max_bytes + 1)
            return data
    except PathRefused as refused:
        raise DocumentError(refused.message, refused.hint) from None
    except OSError as error:
        raise DocumentError(
            f"Cannot read {path.name}: {error.strerror or error}.", "Check its permissions."
        ) from None


def load(path: Path, data: bytes | None = None) -> Loaded:
    """`path`'s segments; `data`: its bytes already read (`read_document`), else read now."""
    kind = kind_of(path)
    if data is None:
        if not path.is_file():
            raise DocumentError(f"Cannot index {path}: no such file.", "Check the path.")
        data = path.read_bytes()
    if not data:
        raise DocumentError(f"Cannot index {path.name}: the file is empty (0 bytes).", _REPLACE)
    if kind == "pdf":
        loaded = _load_pdf(path, data)
    else:
        text = _read_text(path, data)
        segments = _markdown(text) if kind == "markdown" else _html(text) if kind == "html" else []
        loaded = Loaded(kind, segments or [Segment(text)], 0)
    if not any(segment.text.strip() for segment in loaded.segments):
        hint = "A scanned PDF needs OCR first." if kind == "pdf" else _REPLACE
        raise DocumentError(f"Cannot index {path.name}: it holds no text.", hint)
    return loaded


_REPLACE = "Replace it with the document's real content, or leave it out."


def _load_pdf(path: Path, data: bytes) -> Loaded:
    from pypdf import PdfReader  # pypdf is imported only when a PDF is read

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings are not the user's
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError(
                f"Cannot index {path.name}: the PDF is encrypted with a password.",
                "Save an unencrypted copy (e.g. `qpdf --decrypt --password=... in.pdf out.pdf`) "
                "and add that.",
            )
        segments = [
            Segment(page.extract_text() or "", page=number)
            for number, page in enumerate(reader.pages, start=1)
        ]
    except DocumentError:
        raise
    except Exception as error:  # pypdf raises many kinds on a damaged file
        raise DocumentError(
            f"Cannot index {path.name}: not a readable PDF ({type(error).__name__}: {error}).",
            "The file may be damaged or not a PDF; open it in a PDF viewer, re-export it, "
            "and add it again.",
        ) from error
    return Loaded("pdf", segments, len(segments))


def _read_text(path: Path, data: bytes) -> str:
    if b"\x00" in data[:_SNIFF_BYTES]:
        raise DocumentError(
            f"Cannot index {path.name}: it is a binary file, not text.",
            f"Rename it to its real type if supported ({', '.join(sorted(SUFFIXES))}), "
            "or leave it out.",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            return data.decode("cp1252")  # older Windows text files
        except UnicodeDecodeError as error:
            raise DocumentError(
                f"Cannot index {path.name}: it is not text in UTF-8 or Windows-1252 ({error}).",
                "Save it as UTF-8 text and add it again.",
            ) from error


def _markdown(text: str) -> list[Segment]:
    """One segment per heading's body; the section is the heading path."""
    segments: list[Segment] = []
    trail: list[tuple[int, str]] = []
    body: list[str] = []
    fenced = False

    def flush() -> None:
        if "".join(body).strip():
            segments.append(Segment("\n".join(body), section=" > ".join(t for _, t in trail)))
        body.clear()

    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading is None:
            body.append(line)
            continue
        flush()
        level = len(heading.group(1))
        trail = [(lvl, title) for lvl, title in trail if lvl < level]
        trail.append((level, heading.group(2)))
        body.append(heading.group(2))  # the heading's words are searchable too
    flush()
    return segments


class _HtmlText(HTMLParser):
    """Visible text of an HTML page, cut at h1-h6 into sections."""

    _SKIP = frozenset({"script", "style", "noscript", "template"})
    _BLOCK = frozenset({"p", "div", "br", "li", "tr", "td", "th", "section", "article", "pre"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.segments: list[Segment] = []
        self.trail: list[tuple[int, str]] = []
        self.body: list[str] = []
        self.heading: list[str] | None = None
        self.level = 0
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self.skipping += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.heading, self.level = [], int(tag[1])
        elif tag in self._BLOCK:
            self.body.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self.skipping:
            self.skipping -= 1
        elif re.fullmatch(r"h[1-6]", tag) and self.heading is not None:
            title = " ".join("".join(self.heading).split())
            self.trail = [(lvl, t) for lvl, t in self.trail if lvl < self.level]
            self.trail.append((self.level, title))
            self.body.append(title + "\n")
            self.heading = None

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        (self.heading if self.heading is not None else self.body).append(data)

    def flush(self) -> None:
        text = re.sub(r"[ \t]+", " ", "".join(self.body)).strip()
        if text:
            section = " > ".join(t for _, t in self.trail)
            self.segments.append(Segment(text, section=section))
        self.body = []


def _html(text: str) -> list[Segment]:
    parser = _HtmlText()
    parser.feed(text)
    parser.close()
    parser.flush()
    return parser.segments
