"""The first dense or fused search of a session waits for the offline search model to load (tens
of seconds on two cores): the Documents view says "Loading the search model…" with a busy bar
and the seconds so far (issue 29), not "Searching (fused)…" all along, then searches. The real
MiniLM, the real index; the model is dropped from memory first, as in a fresh process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from tests.retrieval.conftest import ok
from tests.support.artifacts import artifact_folder
from workbench.core import minilm
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.index import embeddings
from workbench_plugins.retrieval.sample_pdf import fact, write_fact_pdf
from workbench_plugins.retrieval.views import DocumentsView, documents_view

WAIT_MS = 180_000


@pytest.fixture
def view(app: Any, qtbot: QtBot) -> Iterator[DocumentsView]:
    app.settings = app.settings.with_plugin("retrieval", RetrievalSettings(dense="offline"))
    widget = documents_view(app)
    assert isinstance(widget, DocumentsView)
    qtbot.addWidget(widget)
    widget.resize(560, 620)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    qtbot.waitUntil(lambda: widget.runner.running == 0, timeout=WAIT_MS)


@pytest.mark.slow
def test_the_first_fused_search_says_the_model_is_loading(
    view: DocumentsView, app: Any, workspace: Any, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_fact_pdf(workspace / "report.pdf", 3)
    ok(app, "add_document", path=str(workspace / "report.pdf"))  # embeds: loads the model
    qtbot.waitUntil(lambda: view.search.mode.model().item(2).isEnabled(), timeout=WAIT_MS)
    monkeypatch.setattr(minilm, "_model", None)  # as in a new session: not loaded

    view.search.mode.setCurrentIndex(2)  # fused
    view.search.query.setText(fact(2).split()[1])  # SPX0002
    view.search.submit()
    said = view.search.status.text()
    assert said.startswith("Loading the search model"), said
    assert view.search.loading_bar.isVisible()
    view.grab().save(str(artifact_folder("first-encounters") / "documents-model-loading.png"))
    qtbot.wait(1600)  # the seconds count up while it loads
    if not embeddings.offline_loaded():
        assert view.search.status.text().startswith("Loading the search model")
        assert view.search.status.text() != said
    qtbot.waitUntil(lambda: "(fused)." in view.search.status.text(), timeout=WAIT_MS)
    assert not view.search.loading_bar.isVisible()
    assert embeddings.offline_loaded()
    assert view.search.hit_texts(), view.search.status.text()
