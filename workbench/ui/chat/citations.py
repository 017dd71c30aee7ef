"""Citations in the chat: "docs/report.pdf, page 7" (as search_documents prints them, and as the
retrieval specialist is told to cite) becomes a link that opens the view showing documents at
that page.

A citation's target is "SOURCE#page=N" (ViewRequested.target); its link is `cite:` followed by
the target, percent-encoded, so a link survives Markdown and Qt's rich text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, unquote

SCHEME = "cite:"
SUFFIXES = r"pdf|md|markdown|txt|text|rst|html?"
CITATION = re.compile(
    r"`?(?P<source>(?:[A-Za-z]:)?[\w.~/\\+@-]*[\w-]\.(?:" + SUFFIXES + r"))`?"
    r",?\s+(?:page|p\.)\s*(?P<page>\d+)\b",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^\s*(```|~~~)")
MAX_CARD_LINKS = 8


def target(source: str, page: int) -> str:
    return f"{source}#page={page}"


def href(source: str, page: int) -> str:
    return SCHEME + quote(target(source, page), safe="/#=")


def target_of(link: str) -> str:
    """The target a `cite:` link names, or "" for any other link."""
    return unquote(link[len(SCHEME) :]) if link.startswith(SCHEME) else ""


def citations(text: str) -> list[tuple[str, int]]:
    """(source, page) of each citation in `text`, in order, each once."""
    found = [(m.group("source"), int(m.group("page"))) for m in CITATION.finditer(text)]
    return list(dict.fromkeys(found))


def link_markdown(text: str) -> str:
    """`text` (Markdown) with each citation made a link; code blocks left as they are."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        out.append(line if fenced or _FENCE.match(line) else CITATION.sub(_markdown_link, line))
    return "\n".join(out)


def _markdown_link(match: re.Match[str]) -> str:
    shown = match.group(0).replace("`", "")
    return f"[{shown}]({href(match.group('source'), int(match.group('page')))})"


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside a tool's result (dicts, lists, nested)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)


def cited_in_result(result: Any) -> list[tuple[str, int]]:
    """The places a tool's result cites (a search's numbered passages), each once."""
    found: list[tuple[str, int]] = []
    for text in strings_in(result):
        found += citations(text)
    return list(dict.fromkeys(found))[:MAX_CARD_LINKS]


def links_html(places: list[tuple[str, int]]) -> str:
    """A line of links to `places`, for a tool card."""
    links = [
        f'<a href="{href(source, page)}">{html.escape(source)}, p. {page}</a>'
        for source, page in places
    ]
    return "Open: " + " · ".join(links)
