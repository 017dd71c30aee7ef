"""A FAKE arXiv (stdlib http.server on 127.0.0.1) for testing the real arXiv client: the export
API's Atom feed at /api/query and PDFs at /pdf/<id>, for the papers it is given.

Search follows the API's forms the client sends: `search_query` of `all:<word>` terms joined by
AND (every word in the title or abstract), or `id_list`; `max_results` is honoured and
`opensearch:totalResults` says how many matched. An empty `search_query` gets the API's error
entry. Every request's path and query are kept in `requests`.

    with FakeArxiv([FakePaper("2505.02438", "Title", "Abstract", pdf=b"%PDF-...")]) as arxiv:
        settings: api_url=arxiv.api_url, pdf_url=arxiv.pdf_url
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from tests.rigs.local_http import LocalHttpFake, QuietHandler


@dataclass
class FakePaper:
    arxiv_id: str
    title: str
    summary: str
    authors: list[str] = field(default_factory=lambda: ["A. Author", "B. Author"])
    published: str = "2025-05-05T12:00:00Z"
    category: str = "math.OC"
    pdf: bytes | None = None


def _entry(paper: FakePaper, base: str) -> str:
    authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in paper.authors)
    return (
        f"<entry><id>http://arxiv.org/abs/{paper.arxiv_id}v1</id>"
        f"<updated>{paper.published}</updated><published>{paper.published}</published>"
        f"<title>{escape(paper.title)}</title><summary>  {escape(paper.summary)}\n</summary>"
        f"{authors}"
        f'<link href="http://arxiv.org/abs/{paper.arxiv_id}v1" rel="alternate" type="text/html"/>'
        f'<link title="pdf" href="{base}/pdf/{paper.arxiv_id}v1" rel="related" '
        'type="application/pdf"/>'
        f'<arxiv:primary_category term="{paper.category}" scheme="http://arxiv.org/schemas/atom"/>'
        "</entry>"
    )


def _feed(entries: list[str], total: int) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        "<title>arXiv Query</title><id>http://arxiv.org/api/fake</id>"
        f"<opensearch:totalResults>{total}</opensearch:totalResults>"
        "<opensearch:startIndex>0</opensearch:startIndex>"
        f"{''.join(entries)}</feed>"
    ).encode()


ERROR_ENTRY = (
    "<entry><id>http://arxiv.org/api/errors#incorrect_id_format</id><title>Error</title>"
    "<summary>search_query is empty</summary></entry>"
)


class _Handler(QuietHandler):
    fake: FakeArxiv

    def do_GET(self) -> None:
        self.fake.requests.append(self.path)
        parts = urlsplit(self.path)
        if parts.path == "/api/query":
            self._query({k: v[0] for k, v in parse_qs(parts.query).items()})
        elif parts.path.startswith("/pdf/"):
            paper = self.fake.find(parts.path.removeprefix("/pdf/"))
            if paper is None or paper.pdf is None:
                self.send_bytes(404, b"<html>No such paper</html>", "text/html")
            else:
                self.send_bytes(200, paper.pdf, "application/pdf")
        else:
            self.send_bytes(404, b"not found", "text/plain")

    def _query(self, parameters: dict[str, str]) -> None:
        limit = int(parameters.get("max_results", "10"))
        if "id_list" in parameters:
            found = [p for p in [self.fake.find(parameters["id_list"])] if p is not None]
        elif parameters.get("search_query", "").strip():
            found = self.fake.matching(parameters["search_query"])
        else:
            self.send_bytes(200, _feed([ERROR_ENTRY], 1), "application/atom+xml")
            return
        entries = [_entry(paper, self.fake.base) for paper in found[:limit]]
        self.send_bytes(200, _feed(entries, len(found)), "application/atom+xml")


class FakeArxiv(LocalHttpFake):
    name = "the fake arXiv"
    handler = _Handler

    def __init__(self, papers: list[FakePaper]) -> None:
        super().__init__()
        self.papers = {paper.arxiv_id: paper for paper in papers}
        self.requests: list[str] = []

    @property
    def base(self) -> str:
        return self.url

    @property
    def api_url(self) -> str:
        return f"{self.base}/api/query"

    @property
    def pdf_url(self) -> str:
        return f"{self.base}/pdf"

    def matching(self, search: str) -> list[FakePaper]:
        words = [w.lower() for w in re.findall(r"all:([\w\-]+)", search)]
        return [
            paper
            for paper in self.papers.values()
            if all(w in f"{paper.title} {paper.summary}".lower() for w in words)
        ]

    def find(self, arxiv_id: str) -> FakePaper | None:
        return self.papers.get(re.sub(r"v\d+$", "", arxiv_id))
