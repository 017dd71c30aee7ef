"""The parts the suites' HTML reports share (workbench.bench.report_page)."""

from __future__ import annotations

from pathlib import Path

from workbench.bench.report_page import harness_errors, html_table, write_page


def test_harness_errors_lists_only_the_cells_that_did_not_score_escaped() -> None:
    assert harness_errors([{"key": "a", "status": "ok"}]) == ""
    cells = [
        {"key": "a", "status": "ok"},
        {"key": "b<1>", "status": "error", "error": "x & y"},
        {"key": "c", "status": "error"},
    ]
    shown = harness_errors(cells)
    assert "Harness errors (2)" in shown
    assert "<li>b&lt;1&gt;: x &amp; y</li><li>c: </li>" in shown
    assert "<li>a" not in shown


def test_html_table_keeps_cell_markup_escapes_headings_and_marks_number_columns() -> None:
    table = html_table(["name", "n<"], [["<b>x</b>", "1.0&plusmn;0.1"]], numeric={1}, table_id="t")
    assert table == (
        '<table id="t"><tr><th>name</th><th>n&lt;</th></tr>'
        "<tr><td><b>x</b></td><td class=num>1.0&plusmn;0.1</td></tr></table>"
    )
    assert html_table(["", ""], [["k", "v"]]) == "<table><tr><td>k</td><td>v</td></tr></table>"


def test_write_page_writes_the_parts_in_order(tmp_path: Path) -> None:
    path = write_page(tmp_path / "r.html", "A & B", "p{}", ["<h1>one</h1>", "", "<p>two</p>"])
    page = path.read_text(encoding="utf-8")
    assert "<title>A &amp; B</title><style>p{}</style>" in page
    assert page.endswith("<body><h1>one</h1><p>two</p></body></html>")
