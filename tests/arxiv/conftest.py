"""arXiv tests: a FAKE arXiv API on 127.0.0.1 with the real client, and an app pointed at it."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.rigs.fake_arxiv import FakeArxiv, FakePaper
from workbench.core.tools import ToolOutcome
from workbench_plugins.arxiv.config import ArxivSettings
from workbench_plugins.retrieval.sample_pdf import fact, write_fact_pdf

PAPER_ID = "2505.02438"


@pytest.fixture
def fake_arxiv(tmp_path: Path) -> Iterator[FakeArxiv]:
    pdf = write_fact_pdf(tmp_path / "paper.pdf", 3).read_bytes()
    papers = [
        FakePaper(
            PAPER_ID,
            "SOPTX: a topology optimization framework",
            "A cantilever benchmark with volume fraction 0.4 and filter radius 6.",
            authors=["L. He", "Y. Wei", "X. Chen", "H. Wang"],
            pdf=pdf,
        ),
        FakePaper("2401.00001", "Topology optimization of heat sinks", "Conduction design."),
        FakePaper("2401.00002", "Bayesian calibration of beams", "Unrelated to the rest."),
        FakePaper("2401.00003", "A paper whose PDF is a web page", "No PDF.", pdf=b"<html>"),
    ]
    with FakeArxiv(papers) as server:
        yield server


def point_at(app: Any, **values: Any) -> None:
    app.settings = app.settings.with_plugin("arxiv", ArxivSettings(**values))


@pytest.fixture
def app(context: Any, fake_arxiv: FakeArxiv) -> Any:
    point_at(context, api_url=fake_arxiv.api_url, pdf_url=fake_arxiv.pdf_url)
    return context


def call(app: Any, tool: str, **arguments: Any) -> ToolOutcome:
    return app.registry.call(tool, arguments, caller="agent")  # type: ignore[no-any-return]


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


__all__ = ["PAPER_ID", "call", "closed_port", "fact", "point_at"]
