"""The arXiv tools with the real client against a FAKE arXiv API on 127.0.0.1: search, download
into the workspace and indexing, and the clear errors (bad id, no PDF, unreachable, escape)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.arxiv.conftest import PAPER_ID, call, closed_port, fact, point_at
from tests.rigs.fake_arxiv import FakeArxiv
from workbench.core.doctor import run_checks
from workbench.core.registry import ToolRegistry
from workbench_plugins.arxiv.tools import tools as arxiv_tools


def test_search_against_fake_arxiv_returns_parsed_entries(app: Any) -> None:
    outcome = call(app, "search_arxiv", query="topology optimization", max_results=5)
    assert outcome.ok and outcome.result is not None, outcome.error
    result = outcome.result
    assert result["total"] == 2
    assert [p["arxiv_id"] for p in result["papers"]] == [f"{PAPER_ID}v1", "2401.00001v1"]
    first = result["papers"][0]
    assert first["title"] == "SOPTX: a topology optimization framework"
    assert first["authors"] == ["L. He", "Y. Wei", "X. Chen", "H. Wang"]
    assert first["published"] == "2025-05-05" and first["category"] == "math.OC"
    assert "volume fraction 0.4" in first["summary"]
    assert f"[1] arXiv:{PAPER_ID}v1 (2025-05-05) SOPTX" in result["text"]
    assert "L. He, Y. Wei, X. Chen et al." in result["text"]


def test_fake_arxiv_search_by_id_and_limit(app: Any, fake_arxiv: FakeArxiv) -> None:
    by_id = call(app, "search_arxiv", query=f"arXiv:{PAPER_ID}")
    assert by_id.ok and by_id.result is not None
    assert [p["arxiv_id"] for p in by_id.result["papers"]] == [f"{PAPER_ID}v1"]
    assert f"id_list={PAPER_ID}" in fake_arxiv.requests[-1]
    limited = call(app, "search_arxiv", query="topology", max_results=1)
    assert limited.ok and limited.result is not None
    assert len(limited.result["papers"]) == 1 and limited.result["total"] == 2
    nothing = call(app, "search_arxiv", query="gearbox lubrication")
    assert nothing.ok and nothing.result is not None
    assert nothing.result["papers"] == [] and "No paper matches" in nothing.result["text"]


def test_download_from_fake_arxiv_writes_pdf_in_workspace_and_indexes_it(app: Any) -> None:
    outcome = call(app, "download_arxiv_paper", arxiv_id=f"arXiv:{PAPER_ID}")
    assert outcome.ok and outcome.result is not None, outcome.error
    result = outcome.result
    saved = Path(app.store.folder) / "papers" / f"{PAPER_ID}.pdf"
    assert result["path"] == f"papers/{PAPER_ID}.pdf" and saved.is_file()
    assert saved.read_bytes().startswith(b"%PDF-") and result["size"] == saved.stat().st_size
    assert result["indexed"] is True and "Indexed" in result["message"]
    found = call(app, "search_documents", query="SPX0002", num_results=1)
    assert found.ok and found.result is not None
    [passage] = found.result["passages"]
    assert passage["source"] == f"papers/{PAPER_ID}.pdf" and passage["page"] == 2
    text = " ".join(passage["text"].replace("[", "").replace("]", "").split())
    assert fact(2).split(" with ")[0] in text


@dataclass
class _HostWithoutRetrieval:
    """The app's services with a registry holding only the arXiv tools (no retrieval plugin)."""

    app: Any
    registry: ToolRegistry | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)


def test_download_without_retrieval_plugin_says_it_is_needed(app: Any) -> None:
    host = _HostWithoutRetrieval(app)
    host.registry = ToolRegistry(host)
    for tool in arxiv_tools():
        host.registry.register(tool, owner="arxiv")
    outcome = host.registry.call("download_arxiv_paper", {"arxiv_id": PAPER_ID}, caller="agent")
    assert outcome.ok and outcome.result is not None, outcome.error
    assert outcome.result["indexed"] is False
    assert "needs the retrieval plugin" in outcome.result["message"]
    assert (Path(app.store.folder) / "papers" / f"{PAPER_ID}.pdf").is_file()


def test_fake_arxiv_download_errors_are_clear_and_leave_nothing(app: Any) -> None:
    papers = Path(app.store.folder) / "papers"
    bad_id = call(app, "download_arxiv_paper", arxiv_id="not an id")
    assert not bad_id.ok and bad_id.error is not None
    assert "is not an arXiv id" in bad_id.error.message and "2505.02438" in bad_id.error.message
    missing = call(app, "download_arxiv_paper", arxiv_id="2999.99999")
    assert not missing.ok and missing.error is not None
    assert "HTTP 404" in missing.error.message
    html = call(app, "download_arxiv_paper", arxiv_id="2401.00003")
    assert not html.ok and html.error is not None
    assert "did not return a PDF" in html.error.message
    assert not papers.exists() or not any(papers.iterdir())


def test_papers_folder_escaping_the_workspace_is_refused(app: Any, fake_arxiv: FakeArxiv) -> None:
    point_at(
        app, api_url=fake_arxiv.api_url, pdf_url=fake_arxiv.pdf_url, papers_folder="../outside"
    )
    outcome = call(app, "download_arxiv_paper", arxiv_id=PAPER_ID)
    assert not outcome.ok and outcome.error is not None
    assert "'..' is not allowed" in outcome.error.message
    assert not any("/pdf/" in request for request in fake_arxiv.requests)  # nothing fetched


def test_unreachable_arxiv_gives_clear_error_and_doctor_names_the_host(app: Any) -> None:
    host = f"127.0.0.1:{closed_port()}"
    point_at(app, api_url=f"http://{host}/api/query", pdf_url=f"http://{host}/pdf")
    for tool, arguments in [
        ("search_arxiv", {"query": "topology"}),
        ("download_arxiv_paper", {"arxiv_id": PAPER_ID}),
    ]:
        outcome = app.registry.call(tool, arguments, caller="agent")
        assert not outcome.ok and outcome.error is not None
        assert f"arXiv at {host} is unreachable" in outcome.error.message
        assert "Check the network" in (outcome.error.hint or "")
    [line] = [r for r in run_checks(app) if r.name == "arxiv search"]
    assert line.level == "missing" and host in line.detail and host in line.fix


def test_doctor_says_fake_arxiv_answers(app: Any, fake_arxiv: FakeArxiv) -> None:
    [line] = [r for r in run_checks(app) if r.name == "arxiv search"]
    assert line.level == "ok" and fake_arxiv.base.removeprefix("http://") in line.detail
