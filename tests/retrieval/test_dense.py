"""Dense search through the real Ollama client against a local fake of its API, fused with
keyword search by reciprocal rank fusion; and what doctor says about the modes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.retrieval.conftest import ok
from tests.rigs.fake_ollama import FakeOllama
from workbench_plugins.retrieval.config import RetrievalSettings
from workbench_plugins.retrieval.doctor_checks import check_dense, check_keyword
from workbench_plugins.retrieval.index.database import Passage
from workbench_plugins.retrieval.index.search import Hit, fuse

EMBEDDING_MODEL = "nomic-embed-text:latest"


def _hit(chunk_id: int) -> Hit:
    return Hit(Passage(chunk_id, f"doc{chunk_id}", None, "", "text"), 0.0)


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    keyword = [_hit(1), _hit(2), _hit(3)]
    dense = [_hit(3), _hit(1), _hit(4)]
    fused = fuse([keyword, dense], limit=4)
    assert [h.passage.chunk_id for h in fused] == [1, 3, 2, 4]
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62)


def test_dense_and_fused_search_with_ollama(
    app: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for number, topic in enumerate(("hydraulic pump pressure", "bolt torque preload", "fan")):
        (workspace / f"n{number}.md").write_text(f"# Note {number}\nAbout the {topic}.")
    with FakeOllama(models=[EMBEDDING_MODEL]) as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.url)
        calls = fake.paths
        added = ok(app, "add_document", path=".")
        assert len(added["added"]) == 3 and "/api/embed" in calls

        for mode in ("dense", "fused", "auto"):
            found = ok(app, "search_documents", query="bolt preload", mode=mode)
            assert found["mode"] == ("fused" if mode == "auto" else mode)
            assert found["passages"][0]["source"] == "n1.md"
            assert found["note"] == ""

        doctor = check_dense(app)
        assert doctor.level == "ok" and "nomic-embed-text" in doctor.detail


def test_passages_indexed_offline_get_vectors_when_ollama_answers(
    app: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app.settings = app.settings.with_plugin("retrieval", RetrievalSettings(dense="ollama"))
    (workspace / "a.txt").write_text("Spring rate 40 N/mm.")
    ok(app, "add_document", path="a.txt")  # OLLAMA_HOST points nowhere: keyword only
    offline = ok(app, "search_documents", query="spring rate")
    assert offline["mode"] == "keyword" and "no Ollama server answers" in offline["note"]
    assert check_dense(app).level == "warn"
    with FakeOllama(models=[EMBEDDING_MODEL]) as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.url)
        found = ok(app, "search_documents", query="spring rate", mode="dense")
        assert found["passages"][0]["source"] == "a.txt"


def test_doctor_reports_keyword_search_and_dense_off(app: Any) -> None:
    assert check_keyword(app).level == "ok"
    app.settings = app.settings.with_plugin("retrieval", RetrievalSettings(dense="off"))
    off = check_dense(app)
    assert off.level == "ok" and "off in settings" in off.detail


def test_searches_ask_ollama_for_its_models_once_with_fake_ollama_server(
    app: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search in auto mode asks whether an embedding model is there; a host that drops
    packets would cost the whole probe timeout on every search, so the answer is kept."""
    (workspace / "a.md").write_text("# Springs\nThe spring rate is 12 N/mm.")
    with FakeOllama(models=[EMBEDDING_MODEL]) as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.url)
        ok(app, "add_document", path="a.md")
        for _ in range(3):
            assert ok(app, "search_documents", query="spring rate")["mode"] == "fused"
        assert fake.paths.count("/api/tags") == 1, fake.paths
