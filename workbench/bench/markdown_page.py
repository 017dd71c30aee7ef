"""A suite's Markdown report as one HTML page a browser opens offline: rendered by markdown-it
(CommonMark with tables), each figure's PNG embedded as base64 so the page is whole on its own.
The engjudge and modelica reports use it; what they write is their own Markdown."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

from markdown_it import MarkdownIt

STYLE = (
    "body{font:14px/1.4 system-ui,sans-serif;max-width:1500px;margin:1em auto;padding:0 1em;"
    "color:#111}table{border-collapse:collapse;margin:.4em 0 1.2em}th,td{border:1px solid #aaa;"
    "padding:2px 7px}th{background:#eee}td[style*=right]{font-variant-numeric:tabular-nums}"
    "img{max-width:100%;border:1px solid #ccc}"
)
_IMAGE = re.compile(r'<img src="(?P<file>[^"]+)" alt="(?P<alt>[^"]*)"\s*/?>')


def markdown_page(markdown: str, folder: Path, title: str) -> str:
    """The HTML page of `markdown`; images named relative to `folder` are embedded."""
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    body = _IMAGE.sub(lambda found: _embedded(found["alt"], folder / found["file"]), body)
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body>\n{body}</body></html>\n"
    )


def _embedded(alt: str, path: Path) -> str:
    """A figure as a data URI, or a line saying it is missing (never a broken link)."""
    if not path.is_file() or path.suffix.lower() != ".png":
        return f"(figure {html.escape(path.name)} is missing)"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{alt}" src="data:image/png;base64,{data}">'
