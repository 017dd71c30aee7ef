"""Highlighting, without Qt: the query's words in a passage (as HTML), the few words around the
first match (a hit's preview), and where a passage lies in its page's text.

Keyword search stems words (FTS5's porter tokenizer: "failed" finds "failure"), so a query word
is highlighted wherever a word starts with its stem.
"""

from __future__ import annotations

import html
import re

MARK = "background: #fff3b0; font-weight: bold;"  # the query's words
PASSAGE = "background: #ddf4ff;"  # the passage the hit cites, inside its page
PREVIEW_WORDS = 40
_SUFFIXES = ("ing", "ed", "es", "s", "ure", "ly", "er")
_STOP = frozenset(
    "a an and are as at be by for from in is it of on or the to was were with".split()  # noqa: SIM905
)


def stem(word: str) -> str:
    """A crude stem: enough to find the forms porter stemming matched."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def query_pattern(query: str) -> re.Pattern[str] | None:
    """Words that start with a stem of one of the query's words (stop words left out)."""
    words = [w for w in re.findall(r"\w+", query) if w.lower() not in _STOP]
    stems = sorted({stem(w) for w in words}, key=len, reverse=True)
    if not stems:
        return None
    return re.compile(r"\b(?:" + "|".join(re.escape(s) for s in stems) + r")\w*", re.IGNORECASE)


def marked(text: str, pattern: re.Pattern[str] | None) -> str:
    """`text` as HTML, the matches of `pattern` marked."""
    if pattern is None:
        return html.escape(text)
    out: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        out.append(html.escape(text[last : match.start()]))
        out.append(f'<span style="{MARK}">{html.escape(match.group(0))}</span>')
        last = match.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def preview(text: str, pattern: re.Pattern[str] | None, words: int = PREVIEW_WORDS) -> str:
    """About `words` words of `text` around its first match, as HTML with the matches marked."""
    tokens = text.split()
    first = 0
    if pattern is not None:
        first = next((i for i, t in enumerate(tokens) if pattern.search(t)), 0)
    start = max(0, first - words // 4)
    shown = " ".join(tokens[start : start + words])
    before = "… " if start > 0 else ""
    after = " …" if start + words < len(tokens) else ""
    return before + marked(shown, pattern) + after


def passage_span(page: str, passage: str) -> tuple[int, int] | None:
    """Where `passage` (its words joined by single spaces, as the index keeps them) lies in
    `page` (the original text, with its line breaks), or None."""
    words = passage.split()
    if not words:
        return None
    head = r"\s+".join(re.escape(w) for w in words[:8])
    tail = r"\s+".join(re.escape(w) for w in words[-8:])
    start = re.search(head, page)
    if start is None:
        return None
    # the passage's last words may repeat (boilerplate): take the end nearest its length
    ends = [m.end() for m in re.finditer(tail, page[start.start() :])]
    if not ends:
        return start.start(), len(page)
    end = min(ends, key=lambda e: abs(e - len(passage)))
    return start.start(), start.start() + end


def reflow(page: str) -> str:
    """A PDF page's text with its layout's line breaks joined: a line ending a sentence or
    much shorter than the longest stays a line of its own (headings, paragraph ends)."""
    lines = page.split("\n")
    longest = max((len(line) for line in lines), default=0)
    out: list[str] = []
    for line in lines:
        out.append(line)
        ends = line.rstrip().endswith((".", ":", "!", "?")) or len(line) < 0.6 * longest
        out.append("\n" if ends or not line.strip() else " ")
    return "".join(out).rstrip()


def page_html(page: str, passage: str, pattern: re.Pattern[str] | None) -> tuple[str, int]:
    """The page as HTML: the cited passage shaded, the query's words marked; and the passage's
    start in characters of the page (to scroll to), or -1 when it was not found."""
    page = reflow(page)
    span = passage_span(page, passage)
    if span is None:
        return f"<pre style='{_PRE}'>{marked(page, pattern)}</pre>", -1
    start, end = span
    body = (
        marked(page[:start], pattern)
        + f'<a name="hit"></a><span style="{PASSAGE}">{marked(page[start:end], pattern)}</span>'
        + marked(page[end:], pattern)
    )
    return f"<pre style='{_PRE}'>{body}</pre>", start


_PRE = "white-space: pre-wrap; font-family: sans-serif"
