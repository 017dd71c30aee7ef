"""`modelica-report.html`: the Markdown report as one page a browser opens offline, its figure
embedded. Reads only what `report.report_text` writes: headings, tables, paragraphs, list items
and image lines."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

STYLE = (
    "body{font:14px/1.4 system-ui,sans-serif;max-width:1500px;margin:1em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:.4em 0 1.2em}th,td{border:1px solid #aaa;"
    "padding:2px 7px}th{background:#eee}td.num{text-align:right}img{max-width:100%}"
)
_IMAGE = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<file>[^)]+)\)$")
_HEADING = re.compile(r"^(?P<level>#{1,4}) (?P<text>.*)$")


def _inline(text: str) -> str:
    """Escaped, with the report's **bold** shown bold."""
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text))


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table(lines: list[str]) -> str:
    """Header, alignment rule (`---:` right-aligns a column), rows."""
    header, rule, *rows = lines
    right = [cell.endswith(":") for cell in _cells(rule)]
    out = ["<table><tr>" + "".join(f"<th>{_inline(c)}</th>" for c in _cells(header)) + "</tr>"]
    for row in rows:
        tds = (
            f"<td{' class=num' if i < len(right) and right[i] else ''}>{_inline(c)}</td>"
            for i, c in enumerate(_cells(row))
        )
        out.append("<tr>" + "".join(tds) + "</tr>")
    return "\n".join([*out, "</table>"])


def _image(alt: str, path: Path) -> str:
    if not path.is_file():
        return f"<p>(figure {html.escape(path.name)} is missing)</p>"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<p><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"></p>'


def page(markdown: str, folder: Path, title: str) -> str:
    """The HTML page of `markdown`; images are read from `folder`."""
    body: list[str] = []
    block: list[str] = []  # the table or list being read
    for line in [*markdown.splitlines(), ""]:
        kind = "table" if line.startswith("|") else "list" if line.startswith("- ") else ""
        if block and not (kind and block[0][0] == line[0]):
            is_table = block[0].startswith("|")
            items = "".join(f"<li>{_inline(item[2:])}</li>" for item in block)
            body.append(_table(block) if is_table else f"<ul>{items}</ul>")
            block = []
        if kind:
            block.append(line)
        elif heading := _HEADING.match(line):
            level = len(heading["level"])
            body.append(f"<h{level}>{_inline(heading['text'])}</h{level}>")
        elif image := _IMAGE.match(line):
            body.append(_image(image["alt"], folder / image["file"]))
        elif line.strip():
            body.append(f"<p>{_inline(line)}</p>")
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
