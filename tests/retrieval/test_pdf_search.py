"""Acceptance 1: a generated PDF of 24 pages, indexed and searched offline; hits carry the
right page numbers. Also Markdown sections, HTML, re-indexing on change, and delete."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.retrieval.conftest import listed, ok
from workbench_plugins.retrieval.sample_pdf import fact, write_fact_pdf

PAGES = 24


@pytest.fixture(scope="module")
def report_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_fact_pdf(tmp_path_factory.mktemp("pdf") / "lab_report.pdf", PAGES)


def test_pdf_pages_are_found_by_their_facts(app: Any, workspace: Path, report_pdf: Path) -> None:
    (workspace / "docs").mkdir()
    copy = workspace / "docs" / "lab_report.pdf"
    copy.write_bytes(report_pdf.read_bytes())

    added = ok(app, "add_document", path="docs/lab_report.pdf")
    assert added["added"] == ["docs/lab_report.pdf"]
    documents = ok(app, "list_documents")["documents"]
    assert documents[0]["pages"] == PAGES and documents[0]["kind"] == "pdf"

    for page in (1, 7, 13, 24):
        load = 1000 + 37 * page
        # an identifier is a keyword query: embeddings place SPX0001 and SPX0003 side by side
        found = ok(
            app, "search_documents", query=f"specimen SPX{page:04d} failure load", mode="keyword"
        )
        assert found["mode"] == "keyword"
        best = found["passages"][0]
        assert (best["source"], best["page"]) == ("docs/lab_report.pdf", page)
        assert f"SPX{page:04d}" in best["text"]
        assert f"[1] docs/lab_report.pdf, page {page}" in found["text"]
        assert str(load) in fact(page)


def test_num_results_and_scores(app: Any, workspace: Path, report_pdf: Path) -> None:
    (workspace / "r.pdf").write_bytes(report_pdf.read_bytes())
    ok(app, "add_document", path="r.pdf")
    found = ok(app, "search_documents", query="titanium stiffness", num_results=3)
    assert len(found["passages"]) == 3
    scores = [p["score"] for p in found["passages"]]
    assert scores == sorted(scores, reverse=True)
    assert all("titanium" in p["text"].lower() for p in found["passages"])


def test_markdown_sections_and_html(app: Any, workspace: Path) -> None:
    (workspace / "notes.md").write_text(
        "# Bracket\nIntro words.\n\n## Loads\nThe design load is 4.2 kN on the flange.\n\n"
        "## Material\nUse PA12 nylon.\n"
    )
    (workspace / "sheet.html").write_text(
        "<html><head><style>p{}</style><script>var x='zzqx';</script></head><body>"
        "<h1>Datasheet</h1><p>Maximum torque 12 Nm.</p><h2>Thermal</h2>"
        "<p>Operating range -20 to 85 &deg;C.</p></body></html>"
    )
    ok(app, "add_document", path=".")
    best = ok(app, "search_documents", query="design load flange")["passages"][0]
    assert (best["source"], best["section"], best["page"]) == ("notes.md", "Bracket > Loads", None)
    thermal = ok(app, "search_documents", query="operating range")["passages"][0]
    assert (thermal["source"], thermal["section"]) == ("sheet.html", "Datasheet > Thermal")
    assert "°C" in thermal["text"]
    # scripts are not text (keyword: dense search always ranks its nearest passages)
    assert ok(app, "search_documents", query="zzqx", mode="keyword")["passages"] == []


def test_changed_file_is_reindexed_and_delete_removes_it(app: Any, workspace: Path) -> None:
    note = workspace / "spec.txt"
    note.write_text("The pump delivers 30 litres per minute.")
    assert ok(app, "add_document", path="spec.txt")["added"] == ["spec.txt"]
    assert ok(app, "add_document", path="spec.txt")["unchanged"] == ["spec.txt"]
    note.write_text("The pump delivers 45 litres per minute after the upgrade.")
    assert ok(app, "add_document", path="spec.txt")["updated"] == ["spec.txt"]
    assert len(listed(app)) == 1
    hit = ok(app, "search_documents", query="pump litres")["passages"][0]
    assert "45" in hit["text"] and "30" not in hit["text"]

    assert ok(app, "delete_document", path="spec.txt")["deleted"] == "spec.txt"
    assert listed(app) == []
    assert ok(app, "search_documents", query="pump")["passages"] == []
