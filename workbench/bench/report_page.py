"""What the suites' HTML report pages share: the page around their sections, the list of the
cells that ended in a harness error, and a table whose number columns align right. Each suite
keeps its own sections and style; the page is self-contained so it opens offline."""

from __future__ import annotations

import html
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any


def harness_errors(cells: Iterable[Mapping[str, Any]]) -> str:
    """A heading and a list of the cells that did not run to a score ("" when every one did)."""
    errors = [c for c in cells if c["status"] != "ok"]
    if not errors:
        return ""
    items = "".join(
        f"<li>{html.escape(c['key'])}: {html.escape(c.get('error', ''))}</li>" for c in errors
    )
    return f"<h2 class='err'>Harness errors ({len(errors)})</h2><ul>{items}</ul>"


def html_table(
    header: list[str], rows: list[list[str]], numeric: Collection[int] = (), table_id: str = ""
) -> str:
    """A table of `rows`, whose cells are HTML already (the caller escapes text); the header is
    text, left out when every heading is empty; columns in `numeric` get class `num`."""
    head = "".join(f"<th>{html.escape(cell)}</th>" for cell in header)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=num' if i in numeric else ''}>{cell}</td>" for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    opening = f'<table id="{table_id}">' if table_id else "<table>"
    return f"{opening}{f'<tr>{head}</tr>' if any(header) else ''}{body}</table>"


def write_page(path: Path, title: str, style: str, parts: Iterable[str]) -> Path:
    """Write the page of `parts` (HTML, in order) to `path`."""
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{style}</style></head><body>{''.join(parts)}</body></html>"
    )
    path.write_text(page, encoding="utf-8")
    return path
