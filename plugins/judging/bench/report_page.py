"""The engjudge report as one HTML page a browser opens offline: the Markdown report's own
lines (headings, tables, paragraphs, figures) turned into HTML, each figure's PNG embedded as
base64 so the page is whole on its own. Only the Markdown the report writes is read."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

STYLE = (
    "body{font-family:sans-serif;max-width:1400px;margin:1em auto;padding:0 1em;color:#111}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #999;padding:2px 6px}"
    "td.num{text-align:right}img{max-width:100%;border:1px solid #ccc}"
    "p.note{background:#fff3cd;padding:.4em}"
)
IMAGE = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<file>[^)]+)\)$")


def inline(text: str) -> str:
    """Escaped text with **bold** and `code`."""
    escaped = html.escape(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", escaped)


def cells_of(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def table_html(rows: list[str]) -> str:
    """A Markdown table (header, rule, rows) as an HTML table; ---: columns right-aligned."""
    header, rule, *body = rows
    numeric = [cell.endswith(":") for cell in cells_of(rule)]
    out = ["<table><tr>" + "".join(f"<th>{inline(c)}</th>" for c in cells_of(header)) + "</tr>"]
    for row in body:
        tds = [
            f"<td class=num>{inline(c)}</td>"
            if i < len(numeric) and numeric[i]
            else f"<td>{inline(c)}</td>"
            for i, c in enumerate(cells_of(row))
        ]
        out.append("<tr>" + "".join(tds) + "</tr>")
    return "\n".join([*out, "</table>"])


def image_html(alt: str, path: Path) -> str:
    """A figure embedded as base64, or a line saying it is missing."""
    if not path.is_file():
        return f"<p>(figure {html.escape(path.name)} missing)</p>"
    encoded = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{encoded}"></p>'


def page_html(markdown: str, folder: Path, title: str) -> str:
    """The page for the report's Markdown text; figures are read from `folder`."""
    body: list[str] = []
    table: list[str] = []
    for line in [*markdown.splitlines(), ""]:
        if line.startswith("|"):
            table.append(line)
            continue
        if table:
            body.append(table_html(table))
            table = []
        heading = re.match(r"^(#{1,4}) (.*)$", line)
        image = IMAGE.match(line)
        if heading:
            level = len(heading.group(1))
            body.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
        elif image:
            body.append(image_html(image.group("alt"), folder / image.group("file")))
        elif line.strip():
            note = ' class="note"' if line.startswith("**") else ""
            body.append(f"<p{note}>{inline(line)}</p>")
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
